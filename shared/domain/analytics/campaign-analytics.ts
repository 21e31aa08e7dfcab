import { idTime } from '../../ids.ts';
import { addOnce, campaignAggregates, campaignAggregateSk, type Counters } from '../../store/analytics.ts';
import { listCampaignItems } from '../../store/campaigns.ts';
import type { ServiceEvent } from '../../model/events.ts';
import { analyticsWindow, get, rate, sum, type AnalyticsRange } from './recovery-analytics.ts';
import type { Tenant } from '../../model/tenant.ts';

/**
 * Campaign analytics, counted by enrollment cohort: every counter of an enrollment (its enrollment,
 * each message sent, its recovery) lands on the UTC day the customer was enrolled, read from the
 * enrollment id's time part. So for a window, enrolled = enrollments made in it, messages and
 * recoveries = what those enrollments have produced so far, and recovery_rate = recovered / enrolled
 * (≤ 1). A recovery is credited to the last step actually sent before it (docs/decisions.md, Analytics).
 */
export const MESSAGE_CHANNELS = ['email', 'sms'] as const;

/** The campaign events counted, each on its enrollment's cohort day. */
export const CAMPAIGN_COHORT_EVENTS = [
  'campaign.enrolled',
  'campaign.message_sent',
  'campaign.recovered',
  'card_update.link_sent',
  'card_update.page_opened',
  'card_update.completed',
] as const;

/** The card-update funnel's stages, each counted on its link's enrollment cohort. */
const FUNNEL_COUNTERS = { 'card_update.link_sent': 'links_sent', 'card_update.page_opened': 'pages_opened', 'card_update.completed': 'cards_updated' } as const;
type CampaignCohortEvent = ServiceEvent<(typeof CAMPAIGN_COHORT_EVENTS)[number]>;

const isCampaignCohortEvent = (event: ServiceEvent): event is CampaignCohortEvent => (CAMPAIGN_COHORT_EVENTS as readonly string[]).includes(event.type);

/** The counters one campaign event adds to its enrollment's cohort day, or undefined if it counts for nothing. */
export function campaignCountersFor(event: ServiceEvent): Counters | undefined {
  if (!isCampaignCohortEvent(event)) return undefined;
  switch (event.type) {
    case 'campaign.enrolled':
      return { enrolled_count: 1 };
    case 'campaign.message_sent': {
      const data = event.data;
      if (typeof data.step !== 'number' || !(MESSAGE_CHANNELS as readonly string[]).includes(data.channel)) return undefined;
      return { [`messages_${data.channel}`]: 1, [`step_${data.step}_messages`]: 1 };
    }
    case 'campaign.recovered': {
      const data = event.data;
      if (typeof data.amount !== 'number' || typeof data.currency !== 'string') return undefined;
      const currency = data.currency.toLowerCase();
      const step = typeof data.step === 'number' ? `step_${data.step}_recovered` : 'recovered_before_first_message';
      const counters: Counters = { recovered_count: 1, [`recovered_count_${currency}`]: 1, [`recovered_amount_${currency}`]: data.amount, [step]: 1 };
      if (data.recovery_channel === 'card_update') counters.card_update_recovered = 1;
      return counters;
    }
    case 'card_update.link_sent':
    case 'card_update.page_opened':
    case 'card_update.completed':
      return { [FUNNEL_COUNTERS[event.type]]: 1 };
  }
}

/** The enrollment's cohort day: when its id was made (the event's own day if the id cannot be read). */
function cohortDay(event: ServiceEvent, enrollmentId: string): string {
  return (idTime(enrollmentId) ?? new Date(event.created)).toISOString().slice(0, 10);
}

/** The campaign analytics consumer's work for one event: idempotent per event id. */
export async function recordForCampaignAnalytics(tenant: Tenant, event: ServiceEvent, now: Date): Promise<void> {
  const counters = campaignCountersFor(event);
  if (!counters || !isCampaignCohortEvent(event)) return;
  const data = event.data;
  if (typeof data.campaign_id !== 'string' || typeof data.enrollment_id !== 'string') return;
  const day = cohortDay(event, data.enrollment_id);
  await addOnce(tenant, 'CAMPAIGN', campaignAggregateSk(day, data.campaign_id), event.id, counters, { day, campaign_id: data.campaign_id }, now);
}

// ---- Queries -----------------------------------------------------------------------------------

/** Links sent → pages opened → cards updated → payments recovered (through the card update). */
function cardUpdateFunnel(c: Counters) {
  return { links_sent: get(c, 'links_sent'), pages_opened: get(c, 'pages_opened'), cards_updated: get(c, 'cards_updated'), payments_recovered: get(c, 'card_update_recovered') };
}

function campaignSummary(c: Counters) {
  const enrolled = get(c, 'enrolled_count');
  const recovered = get(c, 'recovered_count');
  const currencies = Object.keys(c)
    .map((name) => /^recovered_count_([a-z]{3})$/.exec(name)?.[1])
    .filter((currency): currency is string => currency !== undefined)
    .sort();
  const lastStep = Math.max(
    -1,
    ...Object.keys(c)
      .map((name) => /^step_(\d+)_(?:messages|recovered)$/.exec(name)?.[1])
      .filter((step): step is string => step !== undefined)
      .map(Number),
  );
  const email = get(c, 'messages_email');
  const sms = get(c, 'messages_sms');
  return {
    enrolled_count: enrolled,
    messages_sent: { email, sms, total: email + sms },
    recovered_count: recovered,
    // Amounts per currency, never summed across currencies.
    recovered_amounts: currencies.map((currency) => ({
      currency,
      count: get(c, `recovered_count_${currency}`),
      amount: get(c, `recovered_amount_${currency}`),
    })),
    recovery_rate: rate(recovered, enrolled),
    recovered_before_first_message: get(c, 'recovered_before_first_message'),
    card_update_funnel: cardUpdateFunnel(c),
    steps: Array.from({ length: lastStep + 1 }, (_, step) => {
      const messages = get(c, `step_${step}_messages`);
      const credited = get(c, `step_${step}_recovered`);
      return { step, messages_sent: messages, recovered_count: credited, conversion_rate: rate(credited, messages) };
    }),
  };
}

/** GET /v1/analytics/campaigns: per campaign with enrollments in the window's cohorts, ordered by campaign id (creation). */
export async function campaignAnalytics(tenant: Tenant, range: AnalyticsRange, now: Date) {
  const query = analyticsWindow(range, now);
  const [aggregates, campaigns] = await Promise.all([campaignAggregates(tenant, query.from, query.to), listCampaignItems(tenant)]);
  const byId = new Map(campaigns.map((campaign) => [campaign.id, campaign]));
  const ids = [...new Set(aggregates.map((aggregate) => aggregate.campaign_id))].sort();
  return {
    from: query.from,
    to: query.to,
    card_update_funnel: cardUpdateFunnel(sum(aggregates)),
    campaigns: ids.map((id) => {
      const campaign = byId.get(id);
      return {
        campaign_id: id,
        name: campaign?.name ?? null,
        status: campaign?.status ?? null,
        ...campaignSummary(sum(aggregates.filter((aggregate) => aggregate.campaign_id === id))),
      };
    }),
  };
}
