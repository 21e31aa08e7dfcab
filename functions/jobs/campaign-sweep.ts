import * as z from '#shared/zod';
import { runtime } from '#shared/runtime';
import { scheduler } from '#shared/composition/scheduler';
import { sweepCampaign } from '#shared/domain/campaigns/campaign-sweeps';
import { jobHandler } from '#shared/job-handler';

const payload = z.object({
  campaign_id: z.string().regex(/^cmp_[0-9a-z]{26}$/),
  action: z.enum(['remove', 'release']),
  event_id: z.string().regex(/^evt_[0-9a-z]{26}$/),
  part: z.number().int().min(0),
  cursor: z.record(z.string(), z.unknown()).nullable(),
});

/** Removes an archived campaign's enrollments, or releases a re-activated one's held steps (queued by its status change, or by itself to continue). */
export const handler = jobHandler(payload, (tenant, job) => sweepCampaign({ scheduler }, tenant, job, runtime.clock.now()));
