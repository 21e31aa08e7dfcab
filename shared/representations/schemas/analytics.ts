import * as z from '../../zod.ts';
import { CATEGORIES, CHANNELS, INTERVALS } from '../../domain/analytics/recovery-analytics.ts';
import { CAMPAIGN_STATUSES } from '../../model/campaign.ts';
import { amount, count, currency, prefixedId, rate } from './common.ts';

const day = z.iso.date();
const tally = z.strictObject({ count: z.int(), amount: z.int() });

/** GET /v1/analytics/recovery: failure cohorts of [from, to], per currency (docs/decisions.md, Analytics). */
export const recoveryAnalyticsSchema = z
  .strictObject({
    from: day,
    to: day,
    interval: z.enum(INTERVALS),
    psp: z.string().nullable(),
    currency: currency.nullable(),
    totals: z.strictObject({
      failed_count: count,
      retried_count: count.meta({ description: 'failures with at least one retry attempt whose outcome was recorded' }),
      messaged_count: count.meta({ description: 'failures a dunning campaign sent at least one message about' }),
      recovered_count: count,
      terminal_count: count,
      pending_count: count,
      recovery_rate: rate,
    }),
    network_holds: z
      .strictObject({
        count: count.meta({ description: 'attempts held back by a card network rule (docs/retry-policy.md, "Card network rules")' }),
        estimated_fees_avoided_usd_cents: count.meta({ description: "an estimate: the networks' published per-attempt fees for the held attempts (domestic), in US cents" }),
        by_rule: z.record(z.string(), count),
      })
      .meta({ description: 'of the failures in the window' }),
    currencies: z.array(
      z.strictObject({
        currency,
        failed: tally,
        retried: tally.meta({ description: 'the funnel: failures retried at least once (an attempt whose outcome was recorded), counted once each' }),
        messaged: tally.meta({ description: 'the funnel: failures a dunning campaign sent at least one message about, counted once each' }),
        recovered: tally,
        terminal: tally,
        pending: tally,
        recovery_rate: rate,
        by_category: z.record(
          z.enum(CATEGORIES),
          z.strictObject({
            failed_count: count,
            failed_amount: amount,
            recovered_count: count,
            recovered_amount: amount,
            terminal_count: count,
            recovery_rate: rate,
          }),
        ),
        by_channel: z.record(z.enum(CHANNELS), tally),
        by_psp: z
          .record(
            z.string(),
            z.strictObject({ failed_count: count, failed_amount: amount, recovered_count: count, recovered_amount: amount, recovery_rate: rate }),
          )
          .meta({ description: 'per processor with failures in the window (keyed by processor name)' }),
        series: z.array(
          z.strictObject({
            period_start: day,
            failed_count: count,
            failed_amount: amount,
            recovered_count: count,
            recovered_amount: amount,
            terminal_count: count,
            pending_count: count,
            recovery_rate: rate,
          }),
        ),
      }),
    ),
  })
  .meta({ id: 'RecoveryAnalytics' });

/** The card-update funnel of personal links in dunning messages. */
const cardUpdateFunnel = z
  .strictObject({ links_sent: count, pages_opened: count, cards_updated: count, payments_recovered: count })
  .meta({ id: 'CardUpdateFunnel', description: 'Personal card-update links sent in messages → pages opened (once per link) → cards updated → payments recovered through the update' });

/** GET /v1/analytics/campaigns: enrollment cohorts of [from, to], per campaign. */
export const campaignAnalyticsSchema = z
  .strictObject({
    from: day,
    to: day,
    card_update_funnel: cardUpdateFunnel,
    campaigns: z.array(
      z.strictObject({
        campaign_id: prefixedId('cmp'),
        name: z.string().nullable(),
        status: z.enum(CAMPAIGN_STATUSES).nullable(),
        enrolled_count: count,
        messages_sent: z.strictObject({ email: count, sms: count, total: count }),
        recovered_count: count,
        recovered_amounts: z.array(z.strictObject({ currency, count, amount })),
        recovery_rate: rate,
        recovered_before_first_message: count,
        card_update_funnel: cardUpdateFunnel,
        steps: z.array(z.strictObject({ step: count, messages_sent: count, recovered_count: count, conversion_rate: rate })),
      }),
    ),
  })
  .meta({ id: 'CampaignAnalytics' });
