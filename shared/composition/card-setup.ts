import { adapterFor } from './adapters.ts';
import { CardSetupFailed, type CardSetup } from '../ports/card-setup.ts';

/**
 * Live card updates at the customer's processor: Stripe Checkout in setup mode, Braintree's Drop-in.
 * Each adapter is loaded by its first use, as the payment processors are (live-processors.ts).
 */
function loaded(load: () => Promise<CardSetup>): CardSetup {
  let loading: Promise<CardSetup> | undefined;
  return {
    start: async (request) => (await (loading ??= load())).start(request),
    complete: async (request) => (await (loading ??= load())).complete(request),
  };
}

const stripe = loaded(async () => (await import('../adapters/aws/stripe-card-setup.ts')).createStripeCardSetup());
const braintree = loaded(async () => (await import('../adapters/aws/braintree-card-setup.ts')).createBraintreeCardSetup());

const byProcessor: CardSetup = {
  start: (request) => forPsp(request.psp).start(request),
  complete: (request) => forPsp(request.psp).complete(request),
};

function forPsp(psp: string): CardSetup {
  if (psp === 'stripe') return stripe;
  if (psp === 'braintree') return braintree;
  const refuse = async (): Promise<never> => {
    throw new CardSetupFailed(`Cards are not taken at ${psp} from this page`, false);
  };
  return { start: refuse, complete: refuse };
}

export const cardSetup: CardSetup = adapterFor('cardSetup', () => byProcessor);
