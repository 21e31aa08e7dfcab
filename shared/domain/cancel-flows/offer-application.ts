import { log } from '../../log.ts';
import type { OfferApplication } from '../../model/cancel-feedback.ts';
import type { Tenant } from '../../model/tenant.ts';
import type { Ports } from '../../ports/ports.ts';
import { findFeedback, saveOfferApplication } from '../../store/cancel-feedback.ts';
import { findConnectionForPsp } from '../../store/processor-connections.ts';
import { credentialsOnDemand } from '../ingestion/processor-credentials.ts';

/**
 * Applies the offer a subscriber accepted in a cancel flow, after the save is stored: driven by the
 * CancelFlowSaved event, so a completion stored by the request or by the dead-letter replay is
 * applied alike, and a processor that is down never loses the save itself. Idempotent: only a
 * feedback record whose offer is still pending is applied, the processor call carries a key derived
 * from the session, and the result is recorded only over `pending`.
 */
export async function applyAcceptedOffer(ports: Pick<Ports, 'offerApplier' | 'keyVault'>, tenant: Tenant, sessionId: string, now: () => Date): Promise<void> {
  const feedback = await findFeedback(tenant, sessionId);
  if (feedback?.offer_application?.status !== 'pending' || !feedback.offer || !feedback.psp) return;
  if (!feedback.psp_customer_id || !feedback.psp_subscription_id) return;
  const connection = await findConnectionForPsp(tenant, feedback.psp);
  const outcome = await ports.offerApplier.apply({
    tenant,
    psp: feedback.psp,
    credentials: credentialsOnDemand(ports.keyVault, connection),
    pspCustomerId: feedback.psp_customer_id,
    pspSubscriptionId: feedback.psp_subscription_id,
    offer: feedback.offer,
    idempotencyKey: `cancel-offer-${sessionId}`,
  });
  const application: OfferApplication = {
    status: outcome.status,
    reason: outcome.status === 'applied' ? null : outcome.reason,
    reference: outcome.status === 'applied' ? outcome.reference : null,
    updated_at: now().toISOString(),
  };
  await saveOfferApplication(tenant, sessionId, application);
  log.info('cancel flow offer application recorded', { session_id: sessionId, status: outcome.status });
}
