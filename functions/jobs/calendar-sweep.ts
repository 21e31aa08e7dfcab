import { runtime } from '#shared/runtime';
import { scheduler } from '#shared/composition/scheduler';
import { sweepCalendar } from '#shared/domain/dunning/calendar-scan';
import { recurringJobHandler } from '#shared/recurring-job-handler';

/** The daily calendar sweep (a recurring schedule's target): queues one calendar scan per tenant with an active calendar campaign. */
export const handler = recurringJobHandler('calendar-sweep', (scheduledTime) => sweepCalendar({ scheduler }, scheduledTime, runtime.clock.now()));
