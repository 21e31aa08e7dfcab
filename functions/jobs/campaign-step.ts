import * as z from '#shared/zod';
import { mailer, smsSender } from '#shared/composition/messaging';
import { runtime } from '#shared/runtime';
import { scheduler } from '#shared/composition/scheduler';
import { updatePage } from '#shared/composition/update-page';
import { runCampaignStep } from '#shared/domain/dunning/dunning-steps';
import { jobHandler } from '#shared/job-handler';

const payload = z.object({
  customer_id: z.string().min(1),
  payment_id: z.string().min(1).nullable(),
  campaign_id: z.string().min(1),
  step: z.number().int().min(0),
  /** Names a calendar enrollment (card_expiring, pre_dunning); absent for the others. */
  calendar_key: z.string().min(1).optional(),
  /** Times this step has waited for a sibling sequence's earlier step (absent: none). */
  deferrals: z.number().int().min(0).optional(),
});

/** One due dunning step of one enrollment: send it, hold it (paused campaign), or end the sequence. */
export const handler = jobHandler(payload, (tenant, { calendar_key: key, ...job }) =>
  runCampaignStep({ scheduler, mailer, smsSender, updatePage }, tenant, { ...job, calendar: key === undefined ? null : { key } }, () => runtime.clock.now()),
);
