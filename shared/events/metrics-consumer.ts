import * as z from '../zod.ts';
import { CATEGORIES, CHANNELS } from '../domain/analytics/recovery-analytics.ts';
import { CAMPAIGN_CHANNELS } from '../model/campaign.ts';
import { log } from '../log.ts';
import { metrics } from '../metrics.ts';
import { eventConsumer } from './consumers.ts';
import type { ServiceEvent } from '../model/events.ts';

const failed = z.object({ id: z.string(), decline_category: z.enum(CATEGORIES) });
const recovered = z.object({ id: z.string(), amount: z.number(), currency: z.string().min(1), recovery_channel: z.enum(CHANNELS).nullish() });
const messageSent = z.object({ campaign_id: z.string(), channel: z.enum(CAMPAIGN_CHANNELS) });

/**
 * Counts recoveries, new failures and dunning messages from the event log, where every one of them
 * is recorded whichever path made it (a retry, a processor webhook, a campaign step), timed when it
 * happened. Runs last, so a record is counted once the others are done with it (a failure of
 * theirs has the stream deliver it again). A malformed event is logged, never
 * thrown: a metric must not hold up the stream.
 */
export const metricsConsumer = eventConsumer({
  name: 'metrics',
  types: ['payment.failed', 'payment.recovered', 'campaign.message_sent'],
  runsLast: true,
  async handle(tenant, event) {
    const at = new Date(event.created);
    switch (event.type) {
      case 'payment.failed': {
        const payment = dataOf(failed, event);
        if (payment) metrics.failureIngested(tenant, { id: payment.id, category: payment.decline_category }, at);
        return;
      }
      case 'payment.recovered': {
        const payment = dataOf(recovered, event);
        // A recovery without a recorded channel counts as the processor's, as in analytics.
        if (payment) metrics.paymentRecovered(tenant, { id: payment.id, channel: payment.recovery_channel ?? 'processor', currency: payment.currency, amount: payment.amount }, at);
        return;
      }
      case 'campaign.message_sent': {
        const message = dataOf(messageSent, event);
        if (message) metrics.dunningMessageSent(tenant, { channel: message.channel, campaignId: message.campaign_id }, at);
        return;
      }
    }
  },
});

function dataOf<T>(schema: z.ZodType<T>, event: ServiceEvent): T | undefined {
  const parsed = schema.safeParse(event.data);
  if (parsed.success) return parsed.data;
  log.warn('event not counted in metrics: unexpected data', { fields: parsed.error.issues.map((issue) => issue.path.join('.')) });
  return undefined;
}
