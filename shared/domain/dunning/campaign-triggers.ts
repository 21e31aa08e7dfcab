import type { CampaignDefinition } from '../../model/campaign.ts';
import { cardInvalidFrom, type PaymentMethod } from '../../model/customer.ts';
import type { DeclineCategory } from '../../model/payment.ts';

/**
 * Which active campaigns a failure enrolls into (§2.2 triggers and trigger_conditions). Pure: the
 * engine gathers the facts and persists the enrollments.
 */
export type EnrollmentOccasion = 'failure' | 'soft_retries_exhausted';

export interface EnrollmentFacts {
  occasion: EnrollmentOccasion;
  amount: number;
  declineCategory: DeclineCategory;
  declineSubcategory: string | null;
  /** Open failures of the customer, this one included. */
  openFailures: number;
  paymentMethod: PaymentMethod | null;
  now: Date;
}

/** Without explicit decline_categories, a campaign takes what §1 routes to dunning; soft_decline takes exhausted soft declines. */
const DUNNING_CATEGORIES: readonly DeclineCategory[] = ['hard_customer', 'unknown'];

/** high_value_churn without a min_amount: failures of at least this much (smallest unit; see decisions.md). */
export const HIGH_VALUE_DEFAULT_MIN_AMOUNT = 10_000;

export function cardExpired(method: PaymentMethod | null, now: Date): boolean {
  const invalidFrom = cardInvalidFrom(method);
  return invalidFrom !== null && invalidFrom <= now;
}

export function triggerFires(campaign: Pick<CampaignDefinition, 'trigger' | 'trigger_conditions'>, facts: EnrollmentFacts): boolean {
  const { trigger, trigger_conditions: conditions } = campaign;
  const categories = conditions.decline_categories.length > 0 ? conditions.decline_categories : trigger === 'soft_decline' ? ['soft_retry'] : DUNNING_CATEGORIES;
  if (!categories.includes(facts.declineCategory)) return false;
  if (conditions.min_amount !== null && facts.amount < conditions.min_amount) return false;
  if (conditions.max_amount !== null && facts.amount > conditions.max_amount) return false;
  const onFailure = facts.occasion === 'failure';
  switch (trigger) {
    case 'payment_failed':
    case 'any_decline':
      return onFailure;
    case 'card_expired':
      return onFailure && (facts.declineSubcategory === 'Card Expired' || cardExpired(facts.paymentMethod, facts.now));
    case 'repeated_failure':
      return onFailure && facts.openFailures >= 2;
    case 'high_value_churn':
      return onFailure && facts.amount >= (conditions.min_amount ?? HIGH_VALUE_DEFAULT_MIN_AMOUNT);
    case 'soft_decline':
      return facts.occasion === 'soft_retries_exhausted';
    case 'card_expiring':
    case 'pre_dunning':
    case 'manual':
      // Not enrolled by failures: by the calendar (card_expiring, pre_dunning) or by the enrollment endpoint (manual).
      return false;
  }
}
