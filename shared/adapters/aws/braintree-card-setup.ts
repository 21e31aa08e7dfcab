/**
 * Live card updates at Braintree (braintree-gateway.ts, the merchant's own API keys): a client token
 * for the Drop-in UI on our page, then the nonce it gives vaulted (verified, made the customer's
 * default) and made the payment method of the subscription. Card data stays at Braintree (SAQ A).
 */
import type { PaymentMethod } from '../../model/customer.ts';
import { CardSetupFailed, type CardSetup, type CardSetupRequest } from '../../ports/card-setup.ts';
import { BRAINTREE_PRODUCTION, BRAINTREE_SANDBOX, BraintreeGatewayError, createBraintreeGateway, type BraintreeGatewayAddress } from './braintree-gateway.ts';

export interface BraintreeCardSetupOptions {
  /** Where the gateway is, for a local fake in tests; by default from the tenant's environment. */
  environmentOverride?: BraintreeGatewayAddress;
  timeoutMs?: number;
}

const BRANDS: Readonly<Record<string, string>> = { Visa: 'visa', MasterCard: 'mastercard', 'American Express': 'amex', Discover: 'discover', JCB: 'jcb' };

export function createBraintreeCardSetup(options: BraintreeCardSetupOptions = {}): CardSetup {
  const gatewayFor = async (request: CardSetupRequest) => {
    const credentials = await request.credentials();
    if (credentials?.kind !== 'braintree') throw new CardSetupFailed('No Braintree API keys on the connection: cards cannot be updated at Braintree from this page', false);
    const address = options.environmentOverride ?? (request.tenant.environment === 'live' ? BRAINTREE_PRODUCTION : BRAINTREE_SANDBOX);
    return createBraintreeGateway(address, credentials, options.timeoutMs ?? 10_000);
  };
  const unavailable = (error: unknown): never => {
    if (error instanceof BraintreeGatewayError) throw new CardSetupFailed(`Braintree could not take the card now (${error.kind}: ${error.message})`, false, error.retryable);
    throw error;
  };
  return {
    async start(request) {
      const gateway = await gatewayFor(request);
      try {
        return { kind: 'drop_in', clientToken: await gateway.clientToken(request.pspCustomerId) };
      } catch (error) {
        return unavailable(error);
      }
    },
    async complete(request) {
      const gateway = await gatewayFor(request);
      try {
        const vaulted = await gateway.vaultNonce(request.pspCustomerId, request.proof);
        if ('refused' in vaulted) throw new CardSetupFailed(`Your card could not be saved: ${vaulted.refused}`, true);
        if (request.pspSubscriptionId) await gateway.setSubscriptionPaymentMethod(request.pspSubscriptionId, vaulted.card.token);
        const { cardType, last4, expirationMonth, expirationYear } = vaulted.card;
        return {
          type: 'card',
          brand: cardType ? (BRANDS[cardType] ?? cardType.toLowerCase()) : null,
          last_four: last4 ?? null,
          exp_month: expirationMonth ? Number(expirationMonth) : null,
          exp_year: expirationYear ? Number(expirationYear) : null,
        } satisfies PaymentMethod;
      } catch (error) {
        return unavailable(error);
      }
    },
  };
}
