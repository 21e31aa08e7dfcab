/**
 * Live retries at Stripe through its REST API (stripe-api.ts), with the merchant's own secret key.
 *
 * What is charged again is the object that failed, never a new one: the open invoice when the failure
 * came from Stripe Billing (`POST /v1/invoices/{id}/pay`, which charges the invoice's, subscription's
 * or customer's default payment method, so a card the customer updated is used), otherwise the payment
 * intent (`POST /v1/payment_intents/{id}/confirm`). An invoice and a payment intent can each be paid
 * only once, so even two different attempts cannot charge the customer twice; the attempt's
 * idempotency key makes a repeated request for the same attempt replay Stripe's first answer instead
 * of being refused, which is what makes the client's network retries (and a runner re-sending the
 * attempt) safe.
 */
import * as z from '../../zod.ts';
import type { Payment } from '../../model/payment.ts';
import { reportedNetworkAnswer } from '../../model/card-ledger.ts';
import type { PaymentProcessor, RetryOutcome } from '../../ports/payment-processor.ts';
import { withinDeadline } from './retry-deadline.ts';
import { createStripeApi, StripeApiError, stripePath, type StripeApi, type StripeEndpoint } from './stripe-api.ts';

export interface StripeProcessorOptions extends StripeEndpoint {
  /**
   * Bound on one retry() call, Stripe requests and their network retries included; also each HTTP
   * request's own timeout. When it passes the answer is no_answer, asked again later (default 10 s).
   */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

const SUCCEEDED: RetryOutcome = { outcome: 'succeeded' };
const NO_API_KEY: RetryOutcome = { outcome: 'refused', awaits: 'merchant', reason: 'No Stripe API key on the connection: live retries are off' };

export function createStripeProcessor(options: StripeProcessorOptions = {}): PaymentProcessor {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    async retry(request) {
      const credentials = await request.credentials();
      const apiKey = credentials?.kind === 'stripe' ? credentials.apiKey : null;
      if (!apiKey) return NO_API_KEY;
      const references = stripeReferences(request.payment);
      const invoiceId = references.find((id) => id.startsWith('in_'));
      const intentId = references.find((id) => id.startsWith('pi_'));
      if (!invoiceId && !intentId) {
        return {
          outcome: 'refused',
          awaits: 'customer',
          reason: `Stripe payment ${request.payment.psp_payment_id} names no invoice or payment intent: a bare charge cannot be attempted again`,
        };
      }
      const stripe = createStripeApi({ ...options, apiKey, timeoutMs });
      return withinDeadline('Stripe', timeoutMs, async (ensureInTime) => {
        try {
          return invoiceId
            ? await payInvoice(stripe, invoiceId, request.idempotencyKey)
            : await confirmIntent(stripe, intentId!, request.idempotencyKey, ensureInTime);
        } catch (error) {
          return outcomeOfError(error);
        }
      });
    },
  };
}

/** Every Stripe id naming the failed charge; `psp_references` is filled by ingestion (pi_, ch_, in_). */
function stripeReferences(payment: Payment): string[] {
  return [...payment.psp_references, payment.psp_payment_id];
}

// ---------------------------------------------------------------------------------------------------
// Invoices

const reference = z.union([z.string().min(1), z.looseObject({ id: z.string().min(1) })]).nullish();

const invoiceSchema = z.looseObject({ id: z.string().min(1), status: z.string().nullish() });
type Invoice = z.infer<typeof invoiceSchema>;

async function payInvoice(stripe: StripeApi, invoiceId: string, idempotencyKey: string): Promise<RetryOutcome> {
  try {
    // No parameters: Stripe charges off-session (the default) with the invoice's, the subscription's
    // or the customer's default payment method, in that order.
    const invoice = await stripe.post(stripePath`/v1/invoices/${invoiceId}/pay`, invoiceSchema, {}, idempotencyKey);
    return invoiceOutcome(invoice);
  } catch (error) {
    // "Invoice is already paid" comes without a code; the invoice itself says whether it is settled
    // (by an attempt whose answer was lost, by Stripe's Smart Retries or by the customer).
    if (error instanceof StripeApiError && error.category === 'invalid_request_error' && error.code !== 'invoice_payment_intent_requires_action') {
      const invoice = await stripe.get(stripePath`/v1/invoices/${invoiceId}`, invoiceSchema);
      if (invoice.status === 'paid') return SUCCEEDED;
      // Voided or written off by the merchant: nobody owes it any more, so recovery ends.
      if (invoice.status === 'void' || invoice.status === 'uncollectible') {
        return { outcome: 'closed', reason: `Stripe invoice ${invoiceId} is ${invoice.status}: there is nothing to pay` };
      }
      if (invoice.status === 'draft') {
        return { outcome: 'refused', awaits: 'merchant', reason: `Stripe invoice ${invoiceId} is a draft: it can be paid once the merchant finalizes it` };
      }
    }
    throw error;
  }
}

function invoiceOutcome(invoice: Invoice): RetryOutcome {
  if (invoice.status === 'paid') return SUCCEEDED;
  // A payment method that settles later (bank debits): the invoice.paid webhook brings the result.
  return { outcome: 'no_answer', reason: `Stripe invoice ${invoice.id} is ${invoice.status} after payment: the payment is still processing` };
}

// ---------------------------------------------------------------------------------------------------
// Payment intents

const paymentIntentSchema = z.looseObject({
  id: z.string().min(1),
  status: z.string().min(1),
  payment_method: reference,
  /** Expanded on the read below; a deleted customer is `{ id, deleted: true }`. */
  customer: z
    .union([
      z.string().min(1),
      z.looseObject({
        id: z.string().min(1),
        deleted: z.boolean().nullish(),
        default_source: reference,
        invoice_settings: z.looseObject({ default_payment_method: reference }).nullish(),
      }),
    ])
    .nullish(),
  last_payment_error: z
    .looseObject({
      code: z.string().nullish(),
      decline_code: z.string().nullish(),
      payment_method: reference,
      network_decline_code: z.string().nullish(),
      network_advice_code: z.string().nullish(),
    })
    .nullish(),
});
type PaymentIntent = z.infer<typeof paymentIntentSchema>;

/**
 * A payment intent that failed off-session is back in requires_payment_method with its payment method
 * cleared (the card that failed is only in last_payment_error), so confirming it needs one: its own if
 * it still has one, else the customer's default (which is where an updated card lands), else the card
 * that failed, which is what a retry of a soft decline means.
 */
async function confirmIntent(stripe: StripeApi, intentId: string, idempotencyKey: string, ensureInTime: () => void): Promise<RetryOutcome> {
  const intent = await stripe.get(stripePath`/v1/payment_intents/${intentId}`, paymentIntentSchema, { expand: ['customer'] });
  if (intent.status !== 'requires_payment_method' && intent.status !== 'requires_confirmation') return intentOutcome(intent);
  const paymentMethod = paymentMethodToCharge(intent);
  if (!paymentMethod) {
    return { outcome: 'refused', awaits: 'customer', reason: `Stripe payment intent ${intentId} has no payment method to charge: the customer must add one` };
  }
  ensureInTime();
  const confirmed = await stripe.post(
    stripePath`/v1/payment_intents/${intentId}/confirm`,
    paymentIntentSchema,
    { payment_method: paymentMethod, off_session: true },
    idempotencyKey,
  );
  return intentOutcome(confirmed);
}

function paymentMethodToCharge(intent: PaymentIntent): string | null {
  const customer = intent.customer;
  const customerDefault =
    customer != null && typeof customer === 'object' && !customer.deleted
      ? (idOf(customer.invoice_settings?.default_payment_method) ?? idOf(customer.default_source))
      : null;
  return idOf(intent.payment_method) ?? customerDefault ?? idOf(intent.last_payment_error?.payment_method);
}

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  value == null ? null : typeof value === 'string' ? value : value.id;

function intentOutcome(intent: PaymentIntent): RetryOutcome {
  switch (intent.status) {
    case 'succeeded':
    case 'requires_capture': // authorized; the merchant captures
      return SUCCEEDED;
    case 'processing':
      return { outcome: 'no_answer', reason: `Stripe payment intent ${intent.id} is processing: the result arrives by webhook` };
    case 'requires_action':
      // Off-session, nobody can complete 3-D Secure: the customer has to come back.
      return { outcome: 'declined', declineCode: 'authentication_required' };
    case 'requires_payment_method': {
      const error = intent.last_payment_error;
      return {
        outcome: 'declined',
        declineCode: error?.decline_code ?? error?.code ?? null,
        ...reportedNetworkAnswer(error?.network_decline_code, error?.network_advice_code),
      };
    }
    case 'canceled': // by the merchant or by Stripe: the charge is off
      return { outcome: 'closed', reason: `Stripe payment intent ${intent.id} is canceled: it cannot be charged again` };
    default:
      // A status this adapter does not know (a newer API): no verdict, asked again later.
      return { outcome: 'no_answer', reason: `Stripe payment intent ${intent.id} is ${intent.status}, a status this service does not know` };
  }
}

// ---------------------------------------------------------------------------------------------------
// Errors

const RETRYABLE = new Set([
  'rate_limit_error',
  'api_error', // 5xx, 409 lock conflicts, unreadable answers
  'api_connection_error', // network errors and timeouts
  // The key was sent before with other parameters (the customer's default card changed in between):
  // a later attempt, with a new key, finds the invoice or intent in its current state.
  'idempotency_error',
]);

function outcomeOfError(error: unknown): RetryOutcome {
  if (!(error instanceof StripeApiError)) throw error;
  // invoices/pay when the charge needs 3-D Secure, which an off-session retry cannot provide.
  if (error.code === 'invoice_payment_intent_requires_action') return { outcome: 'declined', declineCode: 'authentication_required' };
  if (error.category === 'card_error') return { outcome: 'declined', declineCode: error.declineCode ?? error.code, ...(error.network ? { network: error.network } : {}) };
  if (RETRYABLE.has(error.category)) return { outcome: 'no_answer', reason: error.describe() };
  // Authentication, permission and invalid requests: trying again later would get the same answer
  // until the merchant changes something (the key, its permissions, the object at Stripe).
  return { outcome: 'refused', awaits: 'merchant', reason: error.describe() };
}
