import { adapterFor } from './adapters.ts';
import type { PaymentProcessor } from '../ports/payment-processor.ts';
import { liveProcessorFor } from '../adapters/live-processors.ts';
import { sandboxProcessor } from '../adapters/sandbox-processor.ts';

/** Test-mode keys get simulated retries (§5: "svc_test_ … simulated retries"); live mode charges at the payment's processor. */
const byTenantAndProcessor: PaymentProcessor = {
  retry(request) {
    const processor = request.tenant.environment === 'test' ? sandboxProcessor : liveProcessorFor(request.payment.psp);
    return processor.retry(request);
  },
};

/** The processor for this runtime; the local server never reaches a real one: everything there is the sandbox. */
export const paymentProcessor: PaymentProcessor = adapterFor('paymentProcessor', () => byTenantAndProcessor);
