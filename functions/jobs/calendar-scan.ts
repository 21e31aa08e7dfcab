import * as z from '#shared/zod';
import { runtime } from '#shared/runtime';
import { scheduler } from '#shared/composition/scheduler';
import { scanCalendar } from '#shared/domain/dunning/calendar-scan';
import { jobHandler } from '#shared/job-handler';

const payload = z.object({
  day: z.iso.date(),
  part: z.number().int().min(0),
  cursor: z.record(z.string(), z.unknown()).nullable(),
});

/** One tenant's daily calendar scan (queued by the calendar sweep, or by itself to continue): enrolls card_expiring and pre_dunning. */
export const handler = jobHandler(payload, (tenant, job) => scanCalendar({ scheduler }, tenant, job, runtime.clock.now()));
