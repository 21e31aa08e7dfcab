import { keyVault } from '../composition/key-vault.ts';
import { offerApplier } from '../composition/offer-applier.ts';
import { applyAcceptedOffer } from '../domain/cancel-flows/offer-application.ts';
import { runtime } from '../runtime.ts';
import { eventConsumer } from './consumers.ts';

/** A saved cancel flow's accepted offer is applied at the processor once the save is stored (domain/cancel-flows/offer-application.ts). */
export const offerApplication = eventConsumer({
  name: 'cancel-flow-offer-application',
  types: ['CancelFlowSaved'],
  async handle(tenant, event) {
    await applyAcceptedOffer({ offerApplier, keyVault }, tenant, event.data.session_id, () => runtime.clock.now());
  },
});
