import { invalidRequest } from '../../model/errors.ts';
import { checkTestCard, type TestCardForm } from '../../model/test-cards.ts';
import { safePaymentUpdateUrl } from '../../model/payment-update-url.ts';
import type { CardEntry } from '../../model/card-update-link.ts';
import { CardSetupFailed, type CardSetup, type CardSetupRequest } from '../../ports/card-setup.ts';
import type { KeyVault } from '../../ports/key-vault.ts';
import type { UpdatePageAddress } from '../../ports/update-page.ts';
import { findConnectionForPsp } from '../../store/processor-connections.ts';
import { credentialsOnDemand } from '../ingestion/processor-credentials.ts';
import { recordCardUpdate, type CardUpdatePorts } from './card-update.ts';
import { sameCard } from '../../model/enrollment.ts';
import type { ProcessorEvent } from '../../model/processor-event.ts';
import type { Tenant } from '../../model/tenant.ts';
import { findLinkById } from '../../store/card-update-links.ts';
import { findCustomer } from '../../store/customers.ts';
import { linkFailure, openUpdatePage, readUpdatePage, type UpdatePageState } from './update-links.ts';

/**
 * The card-update page's requests: showing it, taking the card (the test-mode form, Braintree's nonce,
 * or a start of Stripe Checkout), and Stripe's return. Test mode only ever offers the sandbox's form;
 * live mode only ever the processor's own (card data never reaches our functions there).
 */
export type PagePorts = CardUpdatePorts & { cardSetup: CardSetup; keyVault: KeyVault; updatePage: UpdatePageAddress };

/** Showing the page schedules nothing: it may only ask the processor for a Drop-in client token. */
type ShowPorts = Pick<PagePorts, 'cardSetup' | 'keyVault'>;

export interface PageOutcome {
  state: UpdatePageState;
  entry: CardEntry;
}

/** What the processor is asked about: the customer's account there, and the subscription of their failure. */
async function setupRequest(ports: Pick<PagePorts, 'keyVault'>, state: Pick<UpdatePageState, 'tenant' | 'psp' | 'customer' | 'pspSubscriptionId'>): Promise<CardSetupRequest> {
  const connection = await findConnectionForPsp(state.tenant, state.psp);
  return {
    tenant: state.tenant,
    psp: state.psp,
    credentials: credentialsOnDemand(ports.keyVault, connection),
    pspCustomerId: state.customer.psp_customer_id,
    pspSubscriptionId: state.pspSubscriptionId,
  };
}

/** How this customer gives a card here, before any attempt. */
async function entryFor(ports: ShowPorts, state: UpdatePageState): Promise<CardEntry> {
  if (state.tenant.environment === 'test') return { kind: 'test_form' };
  if (state.psp === 'stripe') return { kind: 'stripe_checkout' };
  if (state.psp === 'braintree') return dropIn(ports, state);
  return { kind: 'elsewhere', paymentUpdateUrl: safePaymentUpdateUrl(state.merchant?.payment_update_url ?? null) };
}

async function dropIn(ports: ShowPorts, state: UpdatePageState, problem?: string): Promise<CardEntry> {
  try {
    const started = await ports.cardSetup.start({ ...(await setupRequest(ports, state)), returnUrl: '', cancelUrl: '', idempotencyKey: state.link.link_id, metadata: {} });
    if (started.kind !== 'drop_in') throw new CardSetupFailed(`${state.psp} answered a redirect where a client token was expected`, false);
    return { kind: 'braintree_drop_in', clientToken: started.clientToken, ...(problem ? { problem } : {}) };
  } catch (error) {
    if (error instanceof CardSetupFailed) return unavailable(state);
    throw error;
  }
}

/** The processor cannot take the card now: the page says so and whom to ask, like the generic one. */
function unavailable(state: UpdatePageState): CardEntry {
  return { kind: 'elsewhere', paymentUpdateUrl: safePaymentUpdateUrl(state.merchant?.payment_update_url ?? null) };
}

/** GET /update/{token}. */
export async function showUpdatePage(ports: ShowPorts, token: string, clientIp: string | undefined, now: Date): Promise<PageOutcome> {
  const state = await openUpdatePage(token, clientIp, now);
  return { state, entry: await entryFor(ports, state) };
}

async function updated(ports: PagePorts, state: UpdatePageState, card: Parameters<typeof recordCardUpdate>[3], now: Date): Promise<PageOutcome> {
  const report = await recordCardUpdate(ports, state.tenant, state.customer.id, card, state.link, now);
  return { state, entry: { kind: 'done', retried: report.retried.length } };
}

export type SubmittedCard = Partial<TestCardForm> & { payment_method_nonce?: string };

/** POST /update/{token}: the card itself (test form, Braintree nonce), or the start of Stripe Checkout (a redirect). */
export async function submitCard(ports: PagePorts, token: string, form: SubmittedCard, clientIp: string | undefined, now: Date): Promise<PageOutcome | { redirect: string }> {
  const state = await readUpdatePage(token, clientIp, now);
  if (state.tenant.environment === 'test') {
    const values = { number: form.number ?? '', expiry: form.expiry ?? '', cvc: form.cvc ?? '' };
    const check = checkTestCard(values, now);
    if ('field' in check) return { state, entry: { kind: 'test_form', values, problem: { field: check.field, message: check.message } } };
    return updated(ports, state, check.card, now);
  }
  if (form.number !== undefined || form.cvc !== undefined) throw invalidRequest('Live mode takes cards only through the processor: the test card form is for test mode.');
  const entry = await entryFor(ports, state);
  try {
    if (entry.kind === 'stripe_checkout') {
      const page = ports.updatePage.linkFor(token);
      const started = await ports.cardSetup.start({
        ...(await setupRequest(ports, state)),
        returnUrl: `${page}/stripe-return?session_id={CHECKOUT_SESSION_ID}`,
        cancelUrl: page,
        idempotencyKey: `${state.link.link_id}-${now.getTime()}`,
        metadata: { merchant_id: state.tenant.merchantId, environment: state.tenant.environment, customer_id: state.customer.id, link_id: state.link.link_id },
      });
      if (started.kind === 'redirect') return { redirect: started.url };
      return { state, entry: unavailable(state) };
    }
    if (entry.kind === 'braintree_drop_in' && form.payment_method_nonce) {
      const card = await ports.cardSetup.complete({ ...(await setupRequest(ports, state)), proof: form.payment_method_nonce });
      return updated(ports, state, card, now);
    }
  } catch (error) {
    if (!(error instanceof CardSetupFailed)) throw error;
    if (entry.kind === 'stripe_checkout') return { state, entry: { kind: 'stripe_checkout', problem: 'Stripe could not be reached. Please try again in a few minutes.' } };
    return { state, entry: await dropIn(ports, state, error.customerCanRetry ? error.message : 'Your card could not be saved. Please try again in a few minutes.') };
  }
  return { state, entry };
}

/** GET /update/{token}/stripe-return: Checkout's success address, the second path to the same completion as Stripe's event. */
export async function completeStripeReturn(ports: PagePorts, token: string, sessionId: string, clientIp: string | undefined, now: Date): Promise<PageOutcome> {
  const state = await readUpdatePage(token, clientIp, now);
  if (state.tenant.environment !== 'live' || state.psp !== 'stripe') return { state, entry: await entryFor(ports, state) };
  try {
    const card = await ports.cardSetup.complete({ ...(await setupRequest(ports, state)), proof: sessionId });
    return updated(ports, state, card, now);
  } catch (error) {
    if (!(error instanceof CardSetupFailed)) throw error;
    return { state, entry: { kind: 'stripe_checkout', problem: error.message } };
  }
}

export type CardSetupEvent = Extract<ProcessorEvent, { kind: 'card_setup_completed' }>;

/**
 * Stripe's checkout.session.completed (setup mode) or setup_intent.succeeded for a session this page
 * started: the same completion as its return address, whichever arrives first (the later one finds
 * the same card and changes nothing). Null when the event is not ours to act on: another tenant's
 * metadata, an unknown link or customer, or a session Stripe does not confirm as this customer's.
 */
export async function completeCardSetupEvent(
  ports: Omit<PagePorts, 'updatePage'>,
  tenant: Tenant,
  setup: CardSetupEvent,
  now: Date,
): Promise<{ customerId: string; changed: boolean } | null> {
  if (tenant.environment !== 'live' || setup.merchantId !== tenant.merchantId || setup.environment !== tenant.environment) return null;
  const link = await findLinkById(setup.linkId);
  if (!link || link.merchant_id !== tenant.merchantId || link.environment !== tenant.environment || link.customer_id !== setup.customerId) return null;
  const customer = await findCustomer(tenant, link.customer_id);
  if (!customer) return null;
  const { psp, pspSubscriptionId } = await linkFailure(tenant, customer, link);
  if (psp !== 'stripe') return null;
  try {
    const card = await ports.cardSetup.complete({ ...(await setupRequest(ports, { tenant, psp, customer, pspSubscriptionId })), proof: setup.proof });
    await recordCardUpdate(ports, tenant, customer.id, card, link, now);
    return { customerId: customer.id, changed: !sameCard(customer.payment_method, card) };
  } catch (error) {
    // Stripe could not answer now: the receiver fails so that Stripe sends the event again.
    if (!(error instanceof CardSetupFailed) || error.transient) throw error;
    return null;
  }
}
