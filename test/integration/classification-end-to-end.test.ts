import { beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../../shared/model/tenant.ts';
import { newMerchant } from '../support/api.ts';
import { A_HARD, A_SOFT, A_TERMINAL, B_HARD, B_SOFT, B_TERMINAL, GENERIC, GENERIC_DEFAULTS } from '../support/spec-decline-tables.ts';
import { stripeChargeFailure } from '../support/stripe-events.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { postBraintreeFailure } from '../support/braintree-events.ts';
import { BRAINTREE_CREDENTIALS, connect, GENERIC_SECRET, genericFailure, postGeneric, postStripe, STRIPE_SECRET } from '../support/webhooks.ts';

/** Every row of §2.6, posted as the processor would send it, must come out as a payment with the row's fields. */
let tenant: Tenant;
const paths: Record<string, string> = {};

beforeAll(async () => {
  const { merchantId, keys } = await newMerchant();
  tenant = { merchantId, environment: 'test' };
  paths.stripe = await connect(keys.test_admin, 'stripe', { webhook_secret: STRIPE_SECRET });
  paths.braintree = await connect(keys.test_admin, 'braintree', BRAINTREE_CREDENTIALS);
  paths.acme = await connect(keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
});

async function paymentFor(paymentId: string) {
  const [payment] = (await tenantItems(tenant, `PAYMENT#${paymentId}`)) as any[];
  return payment;
}

type Expected = { category: string; subcategory: string; maxRetries: number; cooldownHours: number | null };

function expectPayment(payment: any, code: string, expected: Expected) {
  const status = { soft_retry: 'pending', hard_customer: 'communication_pending', terminal: 'terminal' }[expected.category];
  expect(payment).toMatchObject({
    decline_code: code,
    decline_category: expected.category,
    decline_subcategory: expected.subcategory,
    status,
    max_retries: expected.maxRetries,
    retry_count: 0,
    cooldown_hours: expected.cooldownHours,
  });
  if (expected.category === 'soft_retry') {
    // At least the row's cooldown; the retry policy may move it later (out of the night, to a payday).
    const delay = new Date(payment.next_retry_at).getTime() - new Date(payment.created_at).getTime();
    expect(delay).toBeGreaterThanOrEqual(expected.cooldownHours! * 3600_000);
    expect(delay).toBeLessThanOrEqual((expected.cooldownHours! + 6 * 24) * 3600_000);
  } else {
    expect(payment.next_retry_at).toBeNull();
  }
}

const rows = (soft: typeof A_SOFT, hard: typeof A_HARD, terminal: readonly (readonly [string, string, ...unknown[]])[]) => [
  ...soft.map(([code, subcategory, maxRetries, cooldownHours]) => [code, { category: 'soft_retry', subcategory, maxRetries, cooldownHours }] as const),
  ...hard.map(([code, subcategory]) => [code, { category: 'hard_customer', subcategory, maxRetries: 0, cooldownHours: null }] as const),
  ...terminal.map(([code, subcategory]) => [code, { category: 'terminal', subcategory, maxRetries: 0, cooldownHours: null }] as const),
];

describe('processor A (Stripe) rows, end to end', () => {
  it.each(rows(A_SOFT, A_HARD, A_TERMINAL))('%s', async (code, expected) => {
    const response = await postStripe(paths.stripe!, stripeChargeFailure({ declineCode: code }).charge);
    expect(response.status).toBe(200);
    expectPayment(await paymentFor(response.body.payment_id), code, expected);
  });
});

describe('processor B (Braintree) rows, end to end', () => {
  it.each(rows(B_SOFT, B_HARD, B_TERMINAL))('%s', async (code, expected) => {
    const response = await postBraintreeFailure(paths.braintree!, code);
    expect(response.status).toBe(200);
    expectPayment(await paymentFor(response.body.payment_id), code, expected);
  });
});

describe('generic patterns, end to end', () => {
  it.each(GENERIC)('%s (embedded in a longer code)', async (pattern, category, subcategory) => {
    const code = `psp_${pattern}_2024`;
    const response = await postGeneric(paths.acme!, genericFailure({ code }));
    expect(response.status).toBe(200);
    const [maxRetries, cooldownHours] = category === 'soft_retry' ? GENERIC_DEFAULTS[subcategory]! : [0, null];
    expectPayment(await paymentFor(response.body.payment_id), code, { category, subcategory, maxRetries, cooldownHours });
  });
});
