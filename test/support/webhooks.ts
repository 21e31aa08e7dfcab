import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { runtime } from '../../shared/runtime.ts';
import { call } from './api.ts';

export const STRIPE_SECRET = 'whsec_test_0123456789abcdefghijklmnop';
export const GENERIC_SECRET = 'generic-secret-0123456789abcdef';
export const BRAINTREE_CREDENTIALS = { merchant_id: 'merchant123', public_key: 'public_key_123', private_key: 'private_key_456' };

const stripe = new Stripe('sk_test_unused');

export const nowSeconds = (): number => Math.floor(runtime.clock.now().getTime() / 1000);

/** Connects a processor through the API and returns the connection's webhook path. */
export async function connect(adminKey: string, psp: string, body: Record<string, unknown>): Promise<string> {
  const response = await call('PUT', `/v1/processors/${psp}`, { key: adminKey, body });
  if (response.status !== 200) throw new Error(`connect ${psp} failed: ${JSON.stringify(response.body)}`);
  return new URL(response.body.data.webhook_url).pathname;
}

/** Posts a Stripe event signed by Stripe's own test helper (at the service clock's time unless given). */
export function postStripe(path: string, event: object, options: { secret?: string; timestamp?: number } = {}) {
  const payload = JSON.stringify(event);
  const signature = stripe.webhooks.generateTestHeaderString({
    payload,
    secret: options.secret ?? STRIPE_SECRET,
    timestamp: options.timestamp ?? nowSeconds(),
  });
  return call('POST', path, { rawBody: payload, headers: { 'stripe-signature': signature, 'content-type': 'application/json' } });
}

/** Signs like docs/webhooks-inbound.md says, written independently of the implementation. */
export function genericSignature(body: string, secret = GENERIC_SECRET, timestamp = nowSeconds()): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export function postGeneric(path: string, event: object, options: { secret?: string; timestamp?: number } = {}) {
  const body = JSON.stringify(event);
  return call('POST', path, {
    rawBody: body,
    headers: { 'x-recovery-signature': genericSignature(body, options.secret, options.timestamp), 'content-type': 'application/json' },
  });
}

let sequence = 0;
/** A generic payment.failed event for a fresh (or given) customer and charge. */
export function genericFailure(
  overrides: { code?: string | null; customerId?: string; paymentId?: string; amount?: number; currency?: string; email?: string; lastFour?: string } = {},
) {
  sequence += 1;
  // Unique across test files too: they share one table, and erasure tests scan all of it for a person's data.
  const unique = `${sequence}_${Math.random().toString(36).slice(2, 10)}`;
  return {
    id: `evt_${sequence}_${Math.random().toString(36).slice(2)}`,
    type: 'payment.failed',
    created: nowSeconds(),
    customer: { id: overrides.customerId ?? `cust_${unique}`, email: overrides.email ?? `buyer.${unique}@example.com`, name: `Buyer ${unique}`, timezone: 'Europe/Berlin' },
    subscription: { id: `subx_${unique}`, plan: 'pro', amount: overrides.amount ?? 2900, currency: overrides.currency ?? 'EUR', status: 'past_due', current_period_end: '2026-12-21T00:00:00Z' },
    payment: { id: overrides.paymentId ?? `chg_${unique}`, amount: overrides.amount ?? 2900, currency: overrides.currency ?? 'EUR', decline_code: overrides.code === undefined ? 'insufficient_funds' : overrides.code },
    payment_method: { type: 'card', brand: 'visa', last_four: overrides.lastFour ?? '4242', exp_month: 12, exp_year: 2027 },
  };
}
