import { runtime } from './runtime.ts';
import type { Tenant } from '../model/tenant.ts';
import type { OfferApplier } from '../ports/offer-applier.ts';
import { createStripeOfferApplier } from '../adapters/aws/stripe-offer-applier.ts';
import { createLocalOfferApplier } from '../adapters/local/local-offer-applier.ts';

const local = runtime.local ? createLocalOfferApplier(runtime.local.outbox, runtime.clock) : undefined;
const stripe = createStripeOfferApplier({ now: () => runtime.clock.now() });

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

/** Like processorFor: the local server simulates everything, test mode is simulated, live mode goes to the processor. */
export function offerApplierFor(tenant: Tenant, psp: string): OfferApplier {
  if (local) return local;
  if (tenant.environment === 'test') return sandbox;
  return psp === 'stripe' ? stripe : manual(psp);
}
