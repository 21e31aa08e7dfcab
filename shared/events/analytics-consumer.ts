import { runtime } from '../runtime.ts';
import { ANALYTICS_EVENTS, recordForAnalytics } from '../domain/analytics/recovery-analytics.ts';
import { CAMPAIGN_COHORT_EVENTS, recordForCampaignAnalytics } from '../domain/analytics/campaign-analytics.ts';
import { eventConsumer } from './consumers.ts';

/**
 * Keeps the recovery aggregates: one atomic ADD per event, guarded by a per-event marker (idempotent),
 * and the funnel's retried and messaged stages, once per payment.
 */
export const analyticsConsumer = eventConsumer({
  name: 'analytics',
  types: ANALYTICS_EVENTS,
  async handle(tenant, event) {
    await recordForAnalytics(tenant, event, runtime.clock.now());
  },
});

/** Keeps the campaign aggregates, the same way: enrollments, messages sent, credited recoveries. */
export const campaignAnalyticsConsumer = eventConsumer({
  name: 'campaign-analytics',
  types: CAMPAIGN_COHORT_EVENTS,
  async handle(tenant, event) {
    await recordForCampaignAnalytics(tenant, event, runtime.clock.now());
  },
});
