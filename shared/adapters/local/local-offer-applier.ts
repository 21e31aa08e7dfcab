import type { OfferApplier } from '../../ports/offer-applier.ts';
import type { Clock } from '../../ports/clock.ts';
import type { LocalOutbox } from './outbox.ts';

/**
 * The local server never reaches a processor: an accepted offer is recorded in the outbox
 * (`GET /__dev/outbox`, channel `processor`) as what would have been applied, and counts as applied.
 */
export function createLocalOfferApplier(outbox: LocalOutbox, clock: Clock): OfferApplier {
  return {
    async apply(request) {
      outbox.record({
        channel: 'processor',
        to: `${request.psp}:${request.pspSubscriptionId}`,
        at: clock.now().toISOString(),
        content: {
          action: 'apply_offer',
          merchant_id: request.tenant.merchantId,
          environment: request.tenant.environment,
          psp_customer_id: request.pspCustomerId,
          psp_subscription_id: request.pspSubscriptionId,
          offer: request.offer,
          idempotency_key: request.idempotencyKey,
        },
      });
      return { status: 'applied', reference: `local_${request.idempotencyKey}` };
    },
  };
}
