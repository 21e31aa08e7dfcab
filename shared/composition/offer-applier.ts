import { runtime } from '../runtime.ts';
import { adapterFor } from './adapters.ts';
import type { OfferApplier } from '../ports/offer-applier.ts';
import { createStripeOfferApplier } from '../adapters/aws/stripe-offer-applier.ts';

/** Test mode never changes real subscriptions (§5: "test data, simulated"): the offer counts as applied. */
const sandbox: OfferApplier = {
  async apply(request) {
    return { status: 'applied', reference: `sandbox_${request.idempotencyKey}` };
  },
};

function manual(psp: string): OfferApplier {
  const reason = `Offers are applied automatically at Stripe only: apply this one in ${psp}'s dashboard.`;
  return {
    async apply() {
      return { status: 'manual', reason };
    },
  };
}

/** Like the payment processor: test mode is simulated, live mode goes to Stripe, other processors are the merchant's to apply. */
function byTenantAndProcessor(): OfferApplier {
  const stripe = createStripeOfferApplier({ now: () => runtime.clock.now() });
  return {
    apply(request) {
      const applier = request.tenant.environment === 'test' ? sandbox : request.psp === 'stripe' ? stripe : manual(request.psp);
      return applier.apply(request);
    },
  };
}

/** The offer applier for this runtime; the local server simulates everything. */
export const offerApplier: OfferApplier = adapterFor('offerApplier', byTenantAndProcessor);
