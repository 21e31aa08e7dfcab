import { runtime } from '../composition.ts';
import { recordForAnalytics } from '../domain/analytics.ts';
import { recordForCampaignAnalytics } from '../domain/campaign-analytics.ts';
import type { EventConsumer } from './consumers.ts';

/**
 * Keeps the recovery aggregates: one atomic ADD per event, guarded by a per-event marker (idempotent),
 * and the funnel's retried and messaged stages, once per payment.
 */
export const analyticsConsumer: EventConsumer = {
  name: 'analytics',
  types: ['payment.failed', 'payment.recategorized', 'payment.recovered', 'payment.terminal', 'payment.terminal_reversed', 'payment.retry_failed', 'campaign.message_sent'],
  async handle(tenant, event) {
    await recordForAnalytics(tenant, event, runtime.clock.now());
  },
};

/** Keeps the campaign aggregates, the same way: enrollments, messages sent, credited recoveries. */
export const campaignAnalyticsConsumer: EventConsumer = {
  name: 'campaign-analytics',
  types: ['campaign.enrolled', 'campaign.message_sent', 'campaign.recovered'],
  async handle(tenant, event) {
    await recordForCampaignAnalytics(tenant, event, runtime.clock.now());
  },
};
