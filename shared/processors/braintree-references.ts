/**
 * The reference a failed charge and the later successful charge of the same subscription share: a
 * Braintree success is a new transaction with a new id, so the transaction ids never meet.
 *
 * It is scoped to the billing period. Ingestion stores every reference once per payment, so a bare
 * `sub:<id>` would make every later failure of the subscription (next month's, say) a duplicate of
 * the first one ever recorded. Braintree keeps billingPeriodStartDate unchanged across the automatic
 * retries of a past-due period and moves it only when the period ends, so the failure, its retries and
 * the success that settles them share `sub:<id>:<period start>`, and other periods do not.
 */
export const subscriptionReference = (subscriptionId: string, billingPeriodStartDate: string): string =>
  `sub:${subscriptionId}:${billingPeriodStartDate}`;
