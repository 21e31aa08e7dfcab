import { addOnce, recoveryAggregates, recoveryAggregateSk, type Counters, type RecoveryAggregate } from '../../store/analytics.ts';
import { findPayment } from '../../store/payments.ts';
import { invalidRequest } from '../../model/errors.ts';
import type { DeclineCategory, Payment, RecoveryChannel } from '../../model/payment.ts';
import type { Tenant } from '../../model/tenant.ts';
import type { PaymentEventData, ServiceEvent } from '../../model/events.ts';

/**
 * Recovery analytics, counted by failure cohort: every counter of a payment (its failure, and later
 * its recovery or terminal outcome) lands on the UTC day the payment failed (`created_at`). So for a
 * window, failed = payments that failed in it, recovered/terminal = how many of those came back or
 * were lost so far, pending = the rest, and recovery_rate = recovered_count / failed_count (≤ 1),
 * per currency (docs/decisions.md, Analytics).
 */
export const CATEGORIES = ['soft_retry', 'hard_customer', 'terminal', 'unknown'] as const satisfies readonly DeclineCategory[];
export const CHANNELS = ['automatic_retry', 'manual_retry', 'card_update', 'dunning_campaign', 'cancel_flow_save', 'processor'] as const satisfies readonly RecoveryChannel[];
export const INTERVALS = ['day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];
/** Longest window per interval: a year of days (≤ 366 series points), two years of weeks or months. */
export const MAX_RANGE_DAYS: Record<Interval, number> = { day: 366, week: 731, month: 731 };

/** The payment events counted, each on its payment's cohort day (they all carry the payment's amount, currency, processor, category and creation time). */
export const COHORT_EVENTS = ['payment.failed', 'payment.recategorized', 'payment.recovered', 'payment.terminal', 'payment.terminal_reversed', 'payment.network_held'] as const;
type CohortEvent = ServiceEvent<(typeof COHORT_EVENTS)[number]>;

const isCohortEvent = (event: ServiceEvent): event is CohortEvent => (COHORT_EVENTS as readonly string[]).includes(event.type);

const cohortCategory = (category: string | undefined): string => ((CATEGORIES as readonly string[]).includes(category ?? '') ? category! : 'unknown');

/** The counters one event adds to its payment's cohort day, or undefined if it counts for nothing. */
export function countersFor(event: ServiceEvent): Counters | undefined {
  if (!isCohortEvent(event)) return undefined;
  const payment = event.data;
  const amount = payment.amount;
  const category = cohortCategory(payment.decline_category);
  switch (event.type) {
    case 'payment.failed':
      return { failed_count: 1, failed_amount: amount, [`failed_count_${category}`]: 1, [`failed_amount_${category}`]: amount };
    case 'payment.recategorized': {
      // The failure follows the payment to its new category, so a category's recovered and terminal
      // (counted under the category the payment has then) never outgrow its failed.
      const previous = cohortCategory(event.data.previous_decline_category);
      if (previous === category) return undefined;
      return { [`failed_count_${previous}`]: -1, [`failed_amount_${previous}`]: -amount, [`failed_count_${category}`]: 1, [`failed_amount_${category}`]: amount };
    }
    case 'payment.terminal':
      return { terminal_count: 1, terminal_amount: amount, [`terminal_count_${category}`]: 1, [`terminal_amount_${category}`]: amount };
    case 'payment.terminal_reversed':
      // Paid after all: out of terminal, as its payment.recovered counts it recovered.
      return { terminal_count: -1, terminal_amount: -amount, [`terminal_count_${category}`]: -1, [`terminal_amount_${category}`]: -amount };
    case 'payment.network_held': {
      // An attempt a card network rule held back, and the fee the network publishes for breaking it (an estimate of fees avoided).
      const hold = event.data.network_hold;
      return { network_held_count: 1, [`${HELD_BY_RULE}${hold.rule}`]: 1, network_fees_avoided_cents: hold.fee_avoided_cents };
    }
    case 'payment.recovered': {
      const recoveredVia = event.data.recovery_channel;
      const channel = (CHANNELS as readonly string[]).includes(recoveredVia ?? '') ? recoveredVia! : 'processor';
      return {
        recovered_count: 1,
        recovered_amount: amount,
        [`recovered_count_${category}`]: 1,
        [`recovered_amount_${category}`]: amount,
        [`channel_count_${channel}`]: 1,
        [`channel_amount_${channel}`]: amount,
      };
    }
  }
}

/** Every event the analytics consumer reads: the cohort events and those that reveal a funnel stage. */
export const ANALYTICS_EVENTS = [...COHORT_EVENTS, 'payment.retry_failed', 'campaign.message_sent'] as const;

/**
 * The funnel's middle stages, facts about a payment that count once however many events show them:
 * `retried` once an outcome of its first retry attempt is recorded (retry_count ≥ 1 on a retry's
 * failure, its recovery or its terminal end), `messaged` at a campaign's first message about it.
 */
type FunnelFact = { stage: 'messaged'; paymentId: string } | { stage: 'retried'; payment: PaymentEventData };

function funnelFactOf(event: ServiceEvent): FunnelFact | undefined {
  switch (event.type) {
    case 'campaign.message_sent':
      return event.data.payment_id ? { stage: 'messaged', paymentId: event.data.payment_id } : undefined;
    case 'payment.retry_failed':
    case 'payment.recovered':
    case 'payment.terminal':
      return event.data.retry_count >= 1 ? { stage: 'retried', payment: event.data } : undefined;
    default:
      return undefined;
  }
}

/** Where a payment's counters land: its failure's UTC day, processor and currency. */
function cohortOf(payment: Pick<Payment, 'created_at' | 'psp' | 'currency'>) {
  const day = payment.created_at.slice(0, 10);
  const currency = payment.currency.toLowerCase();
  return { sk: recoveryAggregateSk(day, payment.psp, currency), dimensions: { day, psp: payment.psp, currency } };
}

/** The analytics consumer's work for one event: idempotent per event id (and per payment for funnel stages). */
export async function recordForAnalytics(tenant: Tenant, event: ServiceEvent, now: Date): Promise<void> {
  const counters = countersFor(event);
  if (counters && isCohortEvent(event)) {
    const { sk, dimensions } = cohortOf(event.data);
    await addOnce(tenant, 'RECOVERY', sk, event.id, counters, dimensions, now);
  }
  const fact = funnelFactOf(event);
  if (!fact) return;
  // A message names only its payment: the cohort is read from the payment itself.
  const payment = fact.stage === 'messaged' ? await findPayment(tenant, fact.paymentId) : fact.payment;
  if (!payment) return;
  const { sk, dimensions } = cohortOf(payment);
  await addOnce(tenant, 'RECOVERY', sk, `${fact.stage}#${payment.id}`, { [`${fact.stage}_count`]: 1, [`${fact.stage}_amount`]: payment.amount }, dimensions, now, 'for-good');
}

// ---- Queries -----------------------------------------------------------------------------------

/** A window as asked for: either end may be left out (analyticsWindow fills it). */
export interface AnalyticsRange {
  from?: string;
  to?: string;
}

export interface RecoveryQuery extends AnalyticsRange {
  interval: Interval;
  psp?: string;
  currency?: string;
}

const DAY_MS = 86_400_000;

/** How far back a window without `from` reaches from its `to` (docs/decisions.md, Analytics). */
export const DEFAULT_WINDOW_DAYS = 30;

const dayOf = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 10);

/**
 * A query's window with its defaults, checked by its interval (`interval` undefined: a report without
 * one (campaigns), which allows a year of days). A dashboard's first call sends no range: `to` is
 * today on the service clock (UTC) and `from` 30 days before `to`, so the window holds the last 30
 * days ending now in whole UTC days.
 */
export function analyticsWindow(range: AnalyticsRange & { interval?: Interval }, now: Date): { from: string; to: string } {
  const to = range.to ?? dayOf(now.getTime());
  const from = range.from ?? dayOf(Date.parse(`${to}T00:00:00Z`) - DEFAULT_WINDOW_DAYS * DAY_MS);
  if (from > to) throw invalidRequest(`from must not be after to (${to})`, 'from');
  const days = (Date.parse(to) - Date.parse(from)) / DAY_MS + 1;
  const longest = MAX_RANGE_DAYS[range.interval ?? 'day'];
  if (days > longest) {
    throw invalidRequest(`The range may span at most ${longest} days${range.interval ? ` with interval=${range.interval}` : ''}`, range.to === undefined ? 'from' : 'to');
  }
  return { from, to };
}

/** The start (yyyy-mm-dd) of the calendar period holding `day`: itself, its ISO week's Monday, its month's 1st. */
function periodOf(day: string, interval: Interval): string {
  if (interval === 'day') return day;
  if (interval === 'month') return `${day.slice(0, 7)}-01`;
  const date = new Date(`${day}T00:00:00Z`);
  const sinceMonday = (date.getUTCDay() + 6) % 7;
  return new Date(date.getTime() - sinceMonday * DAY_MS).toISOString().slice(0, 10);
}

function periodsBetween(from: string, to: string, interval: Interval): string[] {
  const periods: string[] = [];
  for (let at = Date.parse(`${from}T00:00:00Z`); at <= Date.parse(`${to}T00:00:00Z`); at += DAY_MS) {
    const period = periodOf(new Date(at).toISOString().slice(0, 10), interval);
    if (periods.at(-1) !== period) periods.push(period);
  }
  return periods;
}

/** recovered / of, rounded to 4 decimals; 0 when `of` is 0. Shared with campaign analytics. */
export const rate = (recovered: number, failed: number): number => (failed === 0 ? 0 : Math.round((recovered / failed) * 10_000) / 10_000);

export const get = (counters: Counters, name: string): number => counters[name] ?? 0;

/** Adds up the counters of several aggregates. */
export function sum(aggregates: readonly Pick<RecoveryAggregate, 'counters'>[]): Counters {
  const total: Counters = {};
  for (const { counters } of aggregates) {
    for (const [name, value] of Object.entries(counters)) if (typeof value === 'number') total[name] = (total[name] ?? 0) + value;
  }
  return total;
}

const HELD_BY_RULE = 'network_held_rule_';

/** Attempts held back by card network rules, per rule, and the networks' published fees for them. */
function networkHolds(c: Counters) {
  const byRule = Object.entries(c)
    .filter(([name]) => name.startsWith(HELD_BY_RULE))
    .map(([name, value]) => [name.slice(HELD_BY_RULE.length), value] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return { count: get(c, 'network_held_count'), estimated_fees_avoided_usd_cents: get(c, 'network_fees_avoided_cents'), by_rule: Object.fromEntries(byRule) };
}

function summary(c: Counters) {
  const failed = { count: get(c, 'failed_count'), amount: get(c, 'failed_amount') };
  const recovered = { count: get(c, 'recovered_count'), amount: get(c, 'recovered_amount') };
  const terminal = { count: get(c, 'terminal_count'), amount: get(c, 'terminal_amount') };
  return {
    failed,
    retried: { count: get(c, 'retried_count'), amount: get(c, 'retried_amount') },
    messaged: { count: get(c, 'messaged_count'), amount: get(c, 'messaged_amount') },
    recovered,
    terminal,
    pending: { count: failed.count - recovered.count - terminal.count, amount: failed.amount - recovered.amount - terminal.amount },
    recovery_rate: rate(recovered.count, failed.count),
  };
}

/** GET /v1/analytics/recovery: per currency (amounts are never summed across currencies), with a series. */
export async function recoveryAnalytics(tenant: Tenant, request: RecoveryQuery, now: Date) {
  const query = { ...request, ...analyticsWindow(request, now) };
  const aggregates = (await recoveryAggregates(tenant, query.from, query.to)).filter(
    (aggregate) => (!query.psp || aggregate.psp === query.psp) && (!query.currency || aggregate.currency === query.currency),
  );
  const periods = periodsBetween(query.from, query.to, query.interval);
  const currencies = [...new Set(aggregates.map((aggregate) => aggregate.currency))].sort();
  const byCurrency = currencies.map((currency) => {
    const ofCurrency = aggregates.filter((aggregate) => aggregate.currency === currency);
    const total = sum(ofCurrency);
    return {
      currency,
      ...summary(total),
      by_category: Object.fromEntries(
        CATEGORIES.map((category) => {
          const failed = get(total, `failed_count_${category}`);
          const recovered = get(total, `recovered_count_${category}`);
          return [
            category,
            {
              failed_count: failed,
              failed_amount: get(total, `failed_amount_${category}`),
              recovered_count: recovered,
              recovered_amount: get(total, `recovered_amount_${category}`),
              terminal_count: get(total, `terminal_count_${category}`),
              recovery_rate: rate(recovered, failed),
            },
          ];
        }),
      ),
      by_channel: Object.fromEntries(
        CHANNELS.map((channel) => [channel, { count: get(total, `channel_count_${channel}`), amount: get(total, `channel_amount_${channel}`) }]),
      ),
      by_psp: Object.fromEntries(
        [...new Set(ofCurrency.map((aggregate) => aggregate.psp))].sort().map((psp) => {
          const ofPsp = summary(sum(ofCurrency.filter((aggregate) => aggregate.psp === psp)));
          return [
            psp,
            { failed_count: ofPsp.failed.count, failed_amount: ofPsp.failed.amount, recovered_count: ofPsp.recovered.count, recovered_amount: ofPsp.recovered.amount, recovery_rate: ofPsp.recovery_rate },
          ];
        }),
      ),
      series: periods.map((period) => {
        const inPeriod = sum(ofCurrency.filter((aggregate) => periodOf(aggregate.day, query.interval) === period));
        const point = summary(inPeriod);
        return {
          period_start: period < query.from ? query.from : period,
          failed_count: point.failed.count,
          failed_amount: point.failed.amount,
          recovered_count: point.recovered.count,
          recovered_amount: point.recovered.amount,
          terminal_count: point.terminal.count,
          pending_count: point.pending.count,
          recovery_rate: point.recovery_rate,
        };
      }),
    };
  });
  const counts = summary(sum(aggregates));
  return {
    from: query.from,
    to: query.to,
    interval: query.interval,
    psp: query.psp ?? null,
    currency: query.currency ?? null,
    // Counts add up across currencies; amounts only ever appear per currency.
    totals: {
      failed_count: counts.failed.count,
      retried_count: counts.retried.count,
      messaged_count: counts.messaged.count,
      recovered_count: counts.recovered.count,
      terminal_count: counts.terminal.count,
      pending_count: counts.pending.count,
      recovery_rate: counts.recovery_rate,
    },
    network_holds: networkHolds(sum(aggregates)),
    currencies: byCurrency,
  };
}
