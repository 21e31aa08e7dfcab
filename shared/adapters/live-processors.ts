import type { PaymentProcessor } from '../ports/payment-processor.ts';

/**
 * A processor's adapter, loaded by its first live retry. The Stripe and Braintree modules build their
 * response schemas as they load (1-1.5 ms of a retry function's import for the two), which a function
 * should pay only when it charges through that processor: not for a test-mode retry, a refused one,
 * or one for the other processor. Bundled, the import stays in the one file; it runs the module's
 * code on the first call.
 */
function loadedOnFirstRetry(load: () => Promise<PaymentProcessor>): PaymentProcessor {
  let loading: Promise<PaymentProcessor> | undefined;
  return {
    async retry(request) {
      loading ??= load();
      return (await loading).retry(request);
    },
  };
}

const stripe = loadedOnFirstRetry(async () => (await import('./aws/stripe-processor.ts')).createStripeProcessor());
const braintree = loadedOnFirstRetry(async () => (await import('./aws/braintree-processor.ts')).createBraintreeProcessor());

/** Processors whose API this service cannot charge through: recovery goes through the customer. */
function unsupported(psp: string): PaymentProcessor {
  const reason = `Live retries are not available for ${psp}: the customer is asked to update their payment method instead`;
  return {
    async retry() {
      return { outcome: 'refused', awaits: 'customer', reason };
    },
  };
}

/** The live-mode processor for a payment's `psp`. Test-mode tenants use the sandbox instead. */
export function liveProcessorFor(psp: string): PaymentProcessor {
  switch (psp) {
    case 'stripe':
      return stripe;
    case 'braintree':
      return braintree;
    default:
      return unsupported(psp);
  }
}
