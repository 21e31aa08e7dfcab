/**
 * Cancel-flow offers applied at Stripe through the official `stripe` package, with the merchant's
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
 * Every write carries an idempotency key derived from the completion, so the SDK's network retries
 * and a repeated application (the event is delivered at least once) change the subscription once.
 */
import Stripe from 'stripe';
import type { OfferApplier, OfferOutcome, OfferRequest } from '../../ports/offer-applier.ts';

export interface StripeOfferApplierOptions {
  /** API address overrides, for a local fake of the Stripe API in tests. */
  host?: string;
  port?: number;
  protocol?: 'http' | 'https';
  timeoutMs?: number;
  /** The clock pause and trial ends are computed from (the service clock). */
  now?: () => Date;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const NETWORK_RETRIES = 2;
const DAY_SECONDS = 24 * 3600;

const clients = new Map<string, Stripe>();

function clientFor(apiKey: string, options: StripeOfferApplierOptions): Stripe {
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const cacheKey = [options.protocol ?? '', options.host ?? '', options.port ?? '', timeout, apiKey].join('|');
  let client = clients.get(cacheKey);
  if (!client) {
    client = new Stripe(apiKey, { maxNetworkRetries: NETWORK_RETRIES, timeout, host: options.host, port: options.port, protocol: options.protocol });
    clients.set(cacheKey, client);
  }
  return client;
}

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
      const credentials = request.connection?.credentials;
      const apiKey = credentials?.kind === 'stripe' ? credentials.apiKey : null;
      if (!apiKey) return { status: 'manual', reason: 'No Stripe API key on the connection, so the offer cannot be applied automatically: apply it in the Stripe dashboard.' };
      const stripe = clientFor(apiKey, options);
      const subscriptionId = request.pspSubscriptionId;
      const key = request.idempotencyKey;
      try {
        const { offer } = request;
        switch (offer.offer_type) {
          case 'discount': {
            const coupon = await stripe.coupons.create(
              {
                percent_off: offer.percent_off,
                ...(offer.duration_months === undefined
                  ? { duration: 'once' as const }
                  : { duration: 'repeating' as const, duration_in_months: offer.duration_months }),
                name: offer.headline.slice(0, 40),
                metadata: { source: 'cancel_flow', idempotency_key: key },
              },
              { idempotencyKey: `${key}-coupon` },
            );
            await stripe.subscriptions.update(subscriptionId, { discounts: [{ coupon: coupon.id }] }, { idempotencyKey: `${key}-discount` });
            return { status: 'applied', reference: coupon.id };
          }
          case 'pause': {
            const resumesAt = epoch(addMonths(now(), offer.duration_months));
            await stripe.subscriptions.update(
              subscriptionId,
              { pause_collection: { behavior: 'void', resumes_at: resumesAt } },
              { idempotencyKey: `${key}-pause` },
            );
            return { status: 'applied', reference: subscriptionId };
          }
          case 'trial_extension': {
            const subscription = await stripe.subscriptions.retrieve(subscriptionId);
            const from = Math.max(epoch(now()), subscription.trial_end ?? 0);
            await stripe.subscriptions.update(
              subscriptionId,
              { trial_end: from + offer.days * DAY_SECONDS, proration_behavior: 'none' },
              { idempotencyKey: `${key}-trial` },
            );
            return { status: 'applied', reference: subscriptionId };
          }
          case 'downgrade': {
            const subscription = await stripe.subscriptions.retrieve(subscriptionId);
            const items = subscription.items.data;
            if (items.length !== 1) {
              return { status: 'manual', reason: `Stripe subscription ${subscriptionId} has ${items.length} items: choose which to move to ${offer.plan_id} in the Stripe dashboard.` };
            }
            await stripe.subscriptions.update(
              subscriptionId,
              { items: [{ id: items[0]!.id, price: offer.plan_id }], proration_behavior: 'create_prorations' },
              { idempotencyKey: `${key}-downgrade` },
            );
            return { status: 'applied', reference: subscriptionId };
          }
        }
      } catch (error) {
        if (!(error instanceof Stripe.errors.StripeError)) throw error;
        return { status: 'failed', reason: `Stripe ${error.rawType ?? error.type}${error.statusCode ? ` (HTTP ${error.statusCode})` : ''}: ${error.message}` };
      }
    },
  };
}
