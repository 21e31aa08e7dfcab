import { isCalendarTrigger, type CalendarTrigger, type CampaignDefinition, type TriggerConditions } from '../../model/campaign.ts';
import { calendarCandidate, cardExpiryMonth, cardInvalidFrom, monthIndex, monthKey, renews, type Customer, type PaymentMethod, type Subscription } from '../../model/customer.ts';
import { sameCard, type CalendarOccasion, type StopReason } from '../../model/enrollment.ts';

/**
 * The calendar triggers (§2.2 `card_expiring`, `pre_dunning`): enrolled by the daily calendar scan,
 * not by failures. Pure: the scan (calendar-scan.ts) gathers customers and persists enrollments.
 * The windows are argued in docs/decisions.md, "Calendar triggers".
 */

/** card_expiring: cards whose expiry month is this month or up to this many after it (UTC), i.e. from the 1st of the month before. */
export const CARD_EXPIRING_MONTHS_AHEAD = 1;
/** pre_dunning: renewals due within this many days (Stripe's renewal reminder offers 3, 7, 15 or 30; 7 leaves a week to act). */
export const PRE_DUNNING_LEAD_DAYS = 7;
/**
 * pre_dunning also considers cards that expired up to this long ago: a yearly subscription can renew
 * on a card that expired months earlier. Every subscription has renewed since a card expired longer
 * ago (no billing interval is longer than a year), and that renewal's failure is dunned on its own.
 */
export const PRE_DUNNING_LOOKBACK_MONTHS = 12;

/**
 * Unbounded conditions take everyone; a bound needs a known amount to hold (a merchant who asked for
 * high-value customers only must not get the ones we cannot value). decline_categories do not apply:
 * nothing has been declined.
 */
function amountHolds(conditions: TriggerConditions, amount: number | null): boolean {
  if (conditions.min_amount === null && conditions.max_amount === null) return true;
  if (amount === null) return false;
  return (conditions.min_amount === null || amount >= conditions.min_amount) && (conditions.max_amount === null || amount <= conditions.max_amount);
}

/** Lowercase letters and digits only: the card's part of an enrollment key, which sort keys and job payloads carry. */
const keyPart = (value: string | null): string => (value ?? 'none').toLowerCase().replace(/[^a-z0-9]+/g, '_');

function largestRenewal(subscriptions: Subscription[]): Pick<CalendarOccasion, 'amount' | 'currency'> {
  const priced = subscriptions.filter((subscription) => subscription.amount !== null);
  const top = priced.reduce<Subscription | undefined>((best, subscription) => (best && best.amount! >= subscription.amount! ? best : subscription), undefined);
  return { amount: top?.amount ?? null, currency: top?.currency ?? null };
}

/** What a calendar campaign would enroll this customer for today: at most one card_expiring occasion, one pre_dunning per renewing subscription. */
export function calendarOccasions(campaign: Pick<CampaignDefinition, 'trigger' | 'trigger_conditions'>, customer: Customer, now: Date): CalendarOccasion[] {
  if (!isCalendarTrigger(campaign.trigger) || !calendarCandidate(customer)) return [];
  const card = customer.payment_method!;
  const expiryMonth = cardExpiryMonth(card)!;
  const renewing = customer.subscriptions.filter(renews);
  if (campaign.trigger === 'card_expiring') {
    const month = monthIndex(now);
    if (expiryMonth < month || expiryMonth > month + CARD_EXPIRING_MONTHS_AHEAD) return [];
    const stake = largestRenewal(renewing);
    if (!amountHolds(campaign.trigger_conditions, stake.amount)) return [];
    const key = `card_expiring:${monthKey(expiryMonth)}:${keyPart(card.brand)}:${keyPart(card.last_four)}`;
    return [{ trigger: 'card_expiring', key, subscription_id: null, renews_at: null, ...stake }];
  }
  const invalidFrom = cardInvalidFrom(card)!.getTime();
  const horizon = now.getTime() + PRE_DUNNING_LEAD_DAYS * 86_400_000;
  return renewing.flatMap((subscription) => {
    const renewsAt = subscription.current_period_end === null ? Number.NaN : Date.parse(subscription.current_period_end);
    if (!(renewsAt > now.getTime() && renewsAt <= horizon && invalidFrom <= renewsAt)) return [];
    if (!amountHolds(campaign.trigger_conditions, subscription.amount)) return [];
    return [
      {
        trigger: 'pre_dunning' as const,
        key: `pre_dunning:${subscription.id}:${subscription.current_period_end}`,
        subscription_id: subscription.id,
        renews_at: subscription.current_period_end,
        amount: subscription.amount,
        currency: subscription.currency,
      },
    ];
  });
}

/** Expiry months (as `YYYY-MM`, inclusive) the scan reads for these triggers today; every occasion above lies in it. */
export function calendarScanRange(triggers: ReadonlySet<CalendarTrigger>, now: Date): { from: string; to: string } {
  const month = monthIndex(now);
  const from = triggers.has('pre_dunning') ? month - PRE_DUNNING_LOOKBACK_MONTHS : month;
  const to = Math.max(month + CARD_EXPIRING_MONTHS_AHEAD, monthIndex(new Date(now.getTime() + PRE_DUNNING_LEAD_DAYS * 86_400_000)));
  return { from: monthKey(from), to: monthKey(to) };
}

/**
 * Why a calendar sequence ends before its next step, or null. A calendar message is about one card
 * and one date, so it stops once either stops being true, whatever stop_on_card_update says: a new
 * card (the message would name the old one), a card that has now expired (card_expiring), a renewal
 * that has come or moved (pre_dunning), or a subscription that no longer renews.
 */
export function calendarStopReason(
  occasion: CalendarOccasion,
  cardAtEnrollment: PaymentMethod | null,
  customer: Pick<Customer, 'payment_method' | 'subscriptions'>,
  now: Date,
): StopReason | null {
  if (!sameCard(cardAtEnrollment, customer.payment_method)) return 'card_updated';
  if (occasion.trigger === 'card_expiring') {
    if (!customer.subscriptions.some(renews)) return 'subscription_ended';
    const invalidFrom = cardInvalidFrom(cardAtEnrollment);
    return invalidFrom !== null && invalidFrom <= now ? 'occasion_passed' : null;
  }
  const subscription = customer.subscriptions.find((candidate) => candidate.id === occasion.subscription_id);
  if (!subscription || !renews(subscription)) return 'subscription_ended';
  if (subscription.current_period_end !== occasion.renews_at || Date.parse(occasion.renews_at!) <= now.getTime()) return 'occasion_passed';
  return null;
}
