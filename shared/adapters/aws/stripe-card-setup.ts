/**
 * Live card updates at Stripe (stripe-api.ts, the merchant's own secret key): a Checkout Session in
 * setup mode for the customer, and on its completion (Stripe's checkout.session.completed or
 * setup_intent.succeeded event, or Checkout's return to our page) the card it saved made the default
 * of the customer's invoices and of the subscription. Card data stays at Stripe (PCI DSS SAQ A).
 */
import * as z from '../../zod.ts';
import type { PaymentMethod } from '../../model/customer.ts';
import { CardSetupFailed, type CardSetup, type CardSetupRequest } from '../../ports/card-setup.ts';
import { createStripeApi, StripeApiError, stripePath, type StripeApi, type StripeEndpoint } from './stripe-api.ts';

export interface StripeCardSetupOptions extends StripeEndpoint {
  timeoutMs?: number;
}

const paymentMethodSchema = z.looseObject({
  id: z.string().min(1),
  type: z.string(),
  card: z.looseObject({ brand: z.string().nullish(), last4: z.string().nullish(), exp_month: z.number().nullish(), exp_year: z.number().nullish() }).nullish(),
});

const setupIntentSchema = z.looseObject({
  id: z.string().min(1),
  status: z.string(),
  customer: z.union([z.string(), z.looseObject({ id: z.string() })]).nullish(),
  payment_method: z.union([z.string(), paymentMethodSchema]).nullish(),
});

const sessionSchema = z.looseObject({
  id: z.string().min(1),
  url: z.string().nullish(),
  status: z.string().nullish(),
  mode: z.string().nullish(),
  customer: z.union([z.string(), z.looseObject({ id: z.string() })]).nullish(),
  setup_intent: z.union([z.string(), setupIntentSchema]).nullish(),
});

const idOf = (value: string | { id: string } | null | undefined): string | null => (typeof value === 'string' ? value : (value?.id ?? null));

async function apiFor(request: CardSetupRequest, options: StripeCardSetupOptions): Promise<StripeApi> {
  const credentials = await request.credentials();
  const apiKey = credentials?.kind === 'stripe' ? credentials.apiKey : null;
  if (!apiKey) throw new CardSetupFailed('No Stripe API key on the connection: cards cannot be updated at Stripe from this page', false);
  return createStripeApi({ ...options, apiKey, timeoutMs: options.timeoutMs ?? 10_000 });
}

/** The setup intent a proof names (a Checkout Session's, or the intent itself), with its card expanded; only the customer's own. */
async function setupIntentOf(stripe: StripeApi, proof: string, pspCustomerId: string) {
  let intent: z.infer<typeof setupIntentSchema>;
  if (proof.startsWith('cs_')) {
    const session = await stripe.get(stripePath`/v1/checkout/sessions/${proof}`, sessionSchema, { expand: ['setup_intent.payment_method'] });
    if (session.mode !== 'setup' || idOf(session.customer) !== pspCustomerId || typeof session.setup_intent !== 'object' || !session.setup_intent) {
      throw new CardSetupFailed('This Checkout Session is not a card update of this customer', false);
    }
    intent = session.setup_intent;
  } else if (proof.startsWith('seti_')) {
    intent = await stripe.get(stripePath`/v1/setup_intents/${proof}`, setupIntentSchema, { expand: ['payment_method'] });
    if (idOf(intent.customer) !== pspCustomerId) throw new CardSetupFailed('This SetupIntent is not of this customer', false);
  } else {
    throw new CardSetupFailed('Not a Stripe Checkout Session or SetupIntent id', false);
  }
  if (intent.status !== 'succeeded' || typeof intent.payment_method !== 'object' || !intent.payment_method) {
    throw new CardSetupFailed('The card was not saved at Stripe: please try again', true);
  }
  return { intent, paymentMethod: intent.payment_method };
}

/** Stripe's answers that a later try may not get: its own errors, a rate limit, no connection. */
const UNAVAILABLE: ReadonlySet<StripeApiError['category']> = new Set(['rate_limit_error', 'api_error', 'api_connection_error']);

function failure(error: unknown): never {
  if (error instanceof StripeApiError) {
    throw new CardSetupFailed(
      error.category === 'card_error' ? error.message : `Stripe could not take the card now (${error.describe()})`,
      error.category === 'card_error',
      UNAVAILABLE.has(error.category),
    );
  }
  throw error;
}

export function createStripeCardSetup(options: StripeCardSetupOptions = {}): CardSetup {
  return {
    async start(request) {
      const stripe = await apiFor(request, options);
      try {
        const session = await stripe.post(
          '/v1/checkout/sessions',
          sessionSchema,
          {
            mode: 'setup',
            customer: request.pspCustomerId,
            payment_method_types: ['card'],
            success_url: request.returnUrl,
            cancel_url: request.cancelUrl,
            metadata: request.metadata,
            setup_intent_data: { metadata: request.metadata },
          },
          request.idempotencyKey,
        );
        if (!session.url) throw new CardSetupFailed('Stripe answered a Checkout Session without a URL', false);
        return { kind: 'redirect', url: session.url, reference: session.id };
      } catch (error) {
        return failure(error);
      }
    },
    async complete(request) {
      const stripe = await apiFor(request, options);
      try {
        const { intent, paymentMethod } = await setupIntentOf(stripe, request.proof, request.pspCustomerId);
        // Keyed by the setup intent: the event and the return page completing the same one set it once.
        await stripe.post(
          stripePath`/v1/customers/${request.pspCustomerId}`,
          z.looseObject({ id: z.string() }),
          { invoice_settings: { default_payment_method: paymentMethod.id } },
          `${intent.id}-customer-default`,
        );
        if (request.pspSubscriptionId) {
          await stripe.post(
            stripePath`/v1/subscriptions/${request.pspSubscriptionId}`,
            z.looseObject({ id: z.string() }),
            { default_payment_method: paymentMethod.id },
            `${intent.id}-subscription-default`,
          );
        }
        const card = paymentMethod.card;
        return {
          type: paymentMethod.type,
          brand: card?.brand ?? null,
          last_four: card?.last4 ?? null,
          exp_month: card?.exp_month ?? null,
          exp_year: card?.exp_year ?? null,
        } satisfies PaymentMethod;
      } catch (error) {
        return failure(error);
      }
    },
  };
}
