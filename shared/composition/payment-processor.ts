import { runtime } from './runtime.ts';
import type { Tenant } from '../model/tenant.ts';
import type { PaymentProcessor } from '../ports/payment-processor.ts';
import { liveProcessorFor } from '../adapters/live-processors.ts';
import { sandboxProcessor } from '../adapters/sandbox-processor.ts';

/**
 * Test-mode keys get simulated retries (§5: "svc_test_ … simulated retries"), and so does everything
 * on the local server, which never reaches a real processor; live mode in AWS charges for real.
 */
export function processorFor(tenant: Tenant, psp: string): PaymentProcessor {
  if (runtime.mode === 'local' || tenant.environment === 'test') return sandboxProcessor;
  return liveProcessorFor(psp);
}
