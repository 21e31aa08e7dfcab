import type { PaymentProcessor } from '../ports/payment-processor.ts';
import { createBraintreeProcessor } from './aws/braintree-processor.ts';
import { createStripeProcessor } from './aws/stripe-processor.ts';

const stripe = createStripeProcessor();
const braintree = createBraintreeProcessor();

/** Processors whose API this service cannot charge through: recovery goes through the customer. */
function unsupported(psp: string): PaymentProcessor {
  const reason = `Live retries are not available for ${psp}: the customer is asked to update their payment method instead`;
  return {
    async retry() {
      return { outcome: 'no_answer', retryable: false, reason };
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
