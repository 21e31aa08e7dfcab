/**
 * Cancel-flow offers applied at Stripe through its REST API (stripe-api.ts), with the merchant's
 * own secret key (the connection's optional `api_key`):
 *
 * - discount: a coupon (`percent_off`, once or repeating for `duration_months`) created for this
 *   completion, then set as the subscription's discount (`discounts`, which replaces any discount
 *   the subscription had: Stripe subscriptions take a list, and a retention offer is meant to be the
 *   deal the subscriber now has);
 * - pause: `pause_collection` with behavior `void` until `duration_months` from now (invoices in the
 *   pause are voided, the subscription stays);
 * - trial_extension: `trial_end` pushed `days` past the later of now and the current trial end,
 *   without proration (the subscriber is not charged until then);
 * - downgrade: the subscription's single item moved to the price `plan_id`, prorated. A subscription
 *   with several items is not guessed at: that is `manual`.
 *
 * Every write carries an idempotency key derived from the completion, so the client's network retries
 * and a repeated application (the event is delivered at least once) change the subscription once.
 */
import * as z from '../../zod.ts';
import type { OfferApplier, OfferOutcome, OfferRequest } from '../../ports/offer-applier.ts';
import { createStripeApi, StripeApiError, stripePath, type StripeEndpoint } from './stripe-api.ts';

export interface StripeOfferApplierOptions extends StripeEndpoint {
  /** Bound on each Stripe request (default 10 s). */
  timeoutMs?: number;
  /** The clock pause and trial ends are computed from (the service clock). */
  now?: () => Date;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DAY_SECONDS = 24 * 3600;

/** What is read of a coupon or an updated subscription: only that Stripe answered with an object. */
const stripeObject = z.looseObject({ id: z.string().min(1) });
const subscriptionSchema = z.looseObject({
  id: z.string().min(1),
  trial_end: z.int().nullish(),
  items: z.looseObject({ data: z.array(z.looseObject({ id: z.string().min(1) })) }),
});

/** Calendar months ahead in UTC, clamped to the month's last day (Jan 31 + 1 month = Feb 28/29). */
export function addMonths(at: Date, months: number): Date {
  const target = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + months, 1, at.getUTCHours(), at.getUTCMinutes(), at.getUTCSeconds()));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(at.getUTCDate(), lastDay));
  return target;
}

const epoch = (at: Date): number => Math.floor(at.getTime() / 1000);

export function createStripeOfferApplier(options: StripeOfferApplierOptions = {}): OfferApplier {
  const now = options.now ?? (() => new Date());
  return {
    async apply(request: OfferRequest): Promise<OfferOutcome> {
      const credentials = await request.credentials();
      const apiKey = credentials?.kind === 'stripe' ? credentials.apiKey : null;
      if (!apiKey) return { status: 'manual', reason: 'No Stripe API key on the connection, so the offer cannot be applied automatically: apply it in the Stripe dashboard.' };
      const stripe = createStripeApi({ ...options, apiKey, timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS });
      const subscriptionId = request.pspSubscriptionId;
      const subscriptionPath = stripePath`/v1/subscriptions/${subscriptionId}`;
      const key = request.idempotencyKey;
      try {
        const { offer } = request;
        switch (offer.offer_type) {
          case 'discount': {
            const coupon = await stripe.post(
              '/v1/coupons',
              stripeObject,
              {
                percent_off: offer.percent_off,
                ...(offer.duration_months === undefined
                  ? { duration: 'once' as const }
                  : { duration: 'repeating' as const, duration_in_months: offer.duration_months }),
                name: offer.headline.slice(0, 40),
                metadata: { source: 'cancel_flow', idempotency_key: key },
              },
              `${key}-coupon`,
            );
            await stripe.post(subscriptionPath, stripeObject, { discounts: [{ coupon: coupon.id }] }, `${key}-discount`);
            return { status: 'applied', reference: coupon.id };
          }
          case 'pause': {
            const resumesAt = epoch(addMonths(now(), offer.duration_months));
            await stripe.post(subscriptionPath, stripeObject, { pause_collection: { behavior: 'void', resumes_at: resumesAt } }, `${key}-pause`);
            return { status: 'applied', reference: subscriptionId };
          }
          case 'trial_extension': {
            const subscription = await stripe.get(subscriptionPath, subscriptionSchema);
            const from = Math.max(epoch(now()), subscription.trial_end ?? 0);
            await stripe.post(
              subscriptionPath,
              stripeObject,
              { trial_end: from + offer.days * DAY_SECONDS, proration_behavior: 'none' },
              `${key}-trial`,
            );
            return { status: 'applied', reference: subscriptionId };
          }
          case 'downgrade': {
            const subscription = await stripe.get(subscriptionPath, subscriptionSchema);
            const items = subscription.items.data;
            if (items.length !== 1) {
              return { status: 'manual', reason: `Stripe subscription ${subscriptionId} has ${items.length} items: choose which to move to ${offer.plan_id} in the Stripe dashboard.` };
            }
            await stripe.post(
              subscriptionPath,
              stripeObject,
              { items: [{ id: items[0]!.id, price: offer.plan_id }], proration_behavior: 'create_prorations' },
              `${key}-downgrade`,
            );
            return { status: 'applied', reference: subscriptionId };
          }
        }
      } catch (error) {
        if (!(error instanceof StripeApiError)) throw error;
        return { status: 'failed', reason: error.describe() };
      }
    },
  };
}
