import fc from 'fast-check';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { WebhookRejected, type ProcessorEvent } from '../../shared/model/processor-event.ts';
import { parseStripeWebhook } from '../../shared/processors/stripe-webhook.ts';

const SECRET = 'whsec_unit_test_secret_0123456789';
// Far from the machine's clock on purpose: only the service clock passed in may decide freshness.
const NOW = 1_900_000_000;
const CREATED = NOW - 20;

/** Signs with Stripe's own test helper, as Stripe would sign the delivery. */
function deliver(event: object | string, options: { timestamp?: number; secret?: string; now?: number } = {}): ProcessorEvent {
  const payload = typeof event === 'string' ? event : JSON.stringify(event);
  const header = Stripe.webhooks.generateTestHeaderString({
    payload,
    secret: options.secret ?? SECRET,
    timestamp: options.timestamp ?? NOW,
  });
  return parseStripeWebhook(payload, header, SECRET, options.now ?? NOW);
}

function stripeEvent(type: string, object: object, extra: object = {}) {
  return {
    id: `evt_${type.replaceAll('.', '_')}`,
    object: 'event',
    api_version: '2024-06-20',
    created: CREATED,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: { object },
    ...extra,
  };
}

function rejection(act: () => unknown): WebhookRejected {
  try {
    act();
  } catch (err) {
    if (err instanceof WebhookRejected) return err;
    throw new Error(`expected WebhookRejected, got ${String(err)}`);
  }
  throw new Error('expected WebhookRejected, but the webhook was accepted');
}

// ---------------------------------------------------------------------------------------------------
// One failed renewal charge, as the three events of an API version up to 2025-03-31 show it.

const card = { brand: 'visa', last4: '4242', exp_month: 8, exp_year: 2031, country: 'US', funding: 'credit' };

const paymentMethod = {
  id: 'pm_1',
  object: 'payment_method',
  type: 'card',
  card,
  billing_details: { email: 'ada@example.com', name: 'Ada Lovelace', phone: null, address: { country: 'gb', city: 'London' } },
  customer: 'cus_1',
  created: CREATED - 86_400,
  livemode: false,
  metadata: {},
};

const failedIntent = {
  id: 'pi_1',
  object: 'payment_intent',
  amount: 2900,
  amount_received: 0,
  currency: 'usd',
  customer: 'cus_1',
  invoice: 'in_1',
  latest_charge: 'ch_1',
  receipt_email: null,
  status: 'requires_payment_method',
  last_payment_error: {
    type: 'card_error',
    code: 'card_declined',
    decline_code: 'insufficient_funds',
    charge: 'ch_1',
    message: 'Your card has insufficient funds.',
    payment_method: paymentMethod,
  },
};

const failedCharge = {
  id: 'ch_1',
  object: 'charge',
  amount: 2900,
  currency: 'usd',
  customer: 'cus_1',
  invoice: 'in_1',
  payment_intent: 'pi_1',
  paid: false,
  status: 'failed',
  failure_code: 'card_declined',
  failure_message: 'Your card has insufficient funds.',
  outcome: { network_status: 'declined_by_network', reason: 'insufficient_funds', risk_level: 'normal', type: 'issuer_declined' },
  billing_details: { email: null, name: 'Ada Lovelace', phone: null, address: { country: 'GB' } },
  receipt_email: 'ada@example.com',
  payment_method: 'pm_1',
  payment_method_details: { type: 'card', card: { ...card, checks: { cvc_check: 'pass' } } },
};

const subscriptionLine = {
  id: 'il_1',
  object: 'line_item',
  amount: 2900,
  currency: 'usd',
  type: 'subscription',
  proration: false,
  period: { start: CREATED - 10, end: CREATED + 2_592_000 },
  price: { id: 'price_pro_monthly', unit_amount: 2900 },
  plan: { id: 'price_pro_monthly', amount: 2900 },
  subscription: 'sub_1',
};

const failedInvoice = {
  id: 'in_1',
  object: 'invoice',
  amount_due: 2900,
  amount_paid: 0,
  amount_remaining: 2900,
  attempt_count: 1,
  billing_reason: 'subscription_cycle',
  currency: 'usd',
  customer: 'cus_1',
  customer_email: 'ada@example.com',
  customer_name: 'Ada Lovelace',
  customer_address: { country: 'GB' },
  subscription: 'sub_1',
  payment_intent: 'pi_1',
  charge: 'ch_1',
  status: 'open',
  last_finalization_error: null,
  lines: { object: 'list', data: [subscriptionLine], has_more: false },
};

// The same failure on a later API version: no invoice on the intent/charge, the invoice names its
// subscription through parent and its payments through the payments list (when the endpoint includes it).
const { invoice: _intentInvoice, ...newFailedIntent } = failedIntent;
const { invoice: _chargeInvoice, ...newFailedCharge } = failedCharge;
const { subscription: _sub, payment_intent: _pi, charge: _ch, lines: _lines, ...invoiceWithoutLinks } = failedInvoice;
const newFailedInvoice = {
  ...invoiceWithoutLinks,
  parent: { type: 'subscription_details', subscription_details: { subscription: 'sub_1', metadata: {} }, quote_details: null },
  payments: {
    object: 'list',
    data: [{ id: 'inpay_1', object: 'invoice_payment', is_default: true, payment: { type: 'payment_intent', payment_intent: 'pi_1' } }],
    has_more: false,
  },
  lines: {
    object: 'list',
    data: [
      {
        id: 'il_1',
        object: 'line_item',
        amount: 2900,
        currency: 'usd',
        period: { start: CREATED - 10, end: CREATED + 2_592_000 },
        pricing: { type: 'price_details', price_details: { price: 'price_pro_monthly', product: 'prod_pro' }, unit_amount_decimal: '2900' },
        parent: {
          type: 'subscription_item_details',
          subscription_item_details: { subscription: 'sub_1', subscription_item: 'si_1', proration: false, invoice_item: null },
          invoice_item_details: null,
        },
      },
      {
        id: 'il_2',
        object: 'line_item',
        amount: -500,
        currency: 'usd',
        period: { start: CREATED - 10, end: CREATED + 5_000_000 },
        pricing: { type: 'price_details', price_details: { price: 'price_basic', product: 'prod_basic' }, unit_amount_decimal: '-500' },
        parent: {
          type: 'subscription_item_details',
          subscription_item_details: { subscription: 'sub_1', subscription_item: 'si_0', proration: true, invoice_item: null },
          invoice_item_details: null,
        },
      },
    ],
    has_more: false,
  },
};

function failure(event: ProcessorEvent) {
  if (event.kind !== 'payment_failed') throw new Error(`expected payment_failed, got ${event.kind}`);
  return event;
}

const sharesReference = (a: string[], b: string[]): boolean => a.some((id) => b.includes(id));

describe('Stripe failed payments', () => {
  it('maps payment_intent.payment_failed, decline_code taking precedence over code', () => {
    const event = deliver(stripeEvent('payment_intent.payment_failed', failedIntent));

    expect(event).toEqual({
      eventId: 'evt_payment_intent_payment_failed',
      occurredAt: new Date(CREATED * 1000).toISOString(),
      kind: 'payment_failed',
      customer: { pspCustomerId: 'cus_1', email: 'ada@example.com', name: 'Ada Lovelace', timezone: null, country: 'GB', phone: null },
      subscription: null,
      payment: { pspPaymentId: 'pi_1', references: ['pi_1', 'ch_1', 'in_1'], amount: 2900, currency: 'usd', declineCode: 'insufficient_funds' },
      paymentMethod: { type: 'card', brand: 'visa', lastFour: '4242', expMonth: 8, expYear: 2031 },
    });
  });

  it('falls back to the error code when there is no decline_code', () => {
    const intent = { ...failedIntent, last_payment_error: { type: 'card_error', code: 'expired_card', charge: 'ch_1' } };

    const event = failure(deliver(stripeEvent('payment_intent.payment_failed', intent)));

    expect(event.payment.declineCode).toBe('expired_card');
    expect(event.paymentMethod).toBeNull();
  });

  it('has no decline code when the intent carries no error', () => {
    const event = failure(deliver(stripeEvent('payment_intent.payment_failed', { ...failedIntent, last_payment_error: null })));

    expect(event.payment.declineCode).toBeNull();
    expect(event.customer).toEqual({ pspCustomerId: 'cus_1', email: null, name: null, timezone: null, country: null, phone: null });
  });

  it('maps charge.failed: the issuer decline code from outcome.reason, the intent as payment id', () => {
    const event = deliver(stripeEvent('charge.failed', failedCharge));

    expect(event).toEqual({
      eventId: 'evt_charge_failed',
      occurredAt: new Date(CREATED * 1000).toISOString(),
      kind: 'payment_failed',
      customer: { pspCustomerId: 'cus_1', email: 'ada@example.com', name: 'Ada Lovelace', timezone: null, country: 'GB', phone: null },
      subscription: null,
      payment: { pspPaymentId: 'pi_1', references: ['pi_1', 'ch_1', 'in_1'], amount: 2900, currency: 'usd', declineCode: 'insufficient_funds' },
      paymentMethod: { type: 'card', brand: 'visa', lastFour: '4242', expMonth: 8, expYear: 2031 },
    });
  });

  it('captures the card network\'s answer and the card\'s fingerprint (charge outcome, payment intent error)', () => {
    const charge = {
      ...failedCharge,
      outcome: { ...failedCharge.outcome, network_decline_code: '51', network_advice_code: '02' },
      payment_method_details: { type: 'card', card: { brand: 'mastercard', last4: '4444', exp_month: 8, exp_year: 2031, fingerprint: 'fp_abc' } },
    };
    const event = deliver(stripeEvent('charge.failed', charge));
    expect(event).toMatchObject({
      payment: { declineCode: 'insufficient_funds', network: { declineCode: '51', adviceCode: '02' } },
      paymentMethod: { brand: 'mastercard', lastFour: '4444', fingerprint: 'fp_abc' },
    });
    const intent = deliver(
      stripeEvent('payment_intent.payment_failed', {
        id: 'pi_9',
        object: 'payment_intent',
        amount: 500,
        currency: 'usd',
        customer: 'cus_1',
        last_payment_error: { code: 'card_declined', decline_code: 'do_not_honor', network_decline_code: '41', charge: 'ch_9' },
      }),
    );
    expect(intent).toMatchObject({ payment: { declineCode: 'do_not_honor', network: { declineCode: '41', adviceCode: null } } });
  });

  it('takes failure_code when the charge was not declined by the issuer (a Radar block names a risk level, not a code)', () => {
    const blocked = { ...failedCharge, outcome: { type: 'blocked', reason: 'highest_risk_level', risk_level: 'highest' }, failure_code: 'card_declined' };

    expect(failure(deliver(stripeEvent('charge.failed', blocked))).payment.declineCode).toBe('card_declined');
  });

  it('uses the charge id when a charge has no payment intent', () => {
    const legacy = { ...failedCharge, payment_intent: null, invoice: null };

    expect(failure(deliver(stripeEvent('charge.failed', legacy))).payment).toMatchObject({ pspPaymentId: 'ch_1', references: ['ch_1'] });
  });

  it('maps invoice.payment_failed with its subscription and no decline code', () => {
    const event = deliver(stripeEvent('invoice.payment_failed', failedInvoice));

    expect(event).toEqual({
      eventId: 'evt_invoice_payment_failed',
      occurredAt: new Date(CREATED * 1000).toISOString(),
      kind: 'payment_failed',
      customer: { pspCustomerId: 'cus_1', email: 'ada@example.com', name: 'Ada Lovelace', timezone: null, country: 'GB', phone: null },
      subscription: {
        pspSubscriptionId: 'sub_1',
        plan: 'price_pro_monthly',
        amount: 2900,
        currency: 'usd',
        status: null,
        currentPeriodEnd: new Date((CREATED + 2_592_000) * 1000).toISOString(),
      },
      payment: { pspPaymentId: 'pi_1', references: ['pi_1', 'ch_1', 'in_1'], amount: 2900, currency: 'usd', declineCode: null },
      paymentMethod: null,
    });
  });

  it('reads the later invoice shape: parent.subscription_details, payments, priced lines, prorations left out', () => {
    const event = failure(deliver(stripeEvent('invoice.payment_failed', newFailedInvoice, { api_version: '2026-10-28.endive' })));

    expect(event.payment).toEqual({ pspPaymentId: 'pi_1', references: ['pi_1', 'in_1'], amount: 2900, currency: 'usd', declineCode: null });
    expect(event.subscription).toEqual({
      pspSubscriptionId: 'sub_1',
      plan: 'price_pro_monthly',
      amount: 2900,
      currency: 'usd',
      status: null,
      currentPeriodEnd: new Date((CREATED + 2_592_000) * 1000).toISOString(),
    });
  });

  it('names only the invoice when a later-version invoice payload lacks payments (the gap in docs/webhooks-inbound.md)', () => {
    const { payments: _payments, ...bare } = newFailedInvoice;

    expect(failure(deliver(stripeEvent('invoice.payment_failed', bare))).payment).toMatchObject({ pspPaymentId: 'in_1', references: ['in_1'] });
  });

  it.each([
    ['up to 2025-03-31', [failedIntent, failedCharge, failedInvoice]],
    ['later, with invoice payments', [newFailedIntent, newFailedCharge, newFailedInvoice]],
  ] as const)('gives the three failure events of one charge shared references, API version %s', (_version, [intent, charge, invoice]) => {
    const events = [
      failure(deliver(stripeEvent('payment_intent.payment_failed', intent))),
      failure(deliver(stripeEvent('charge.failed', charge))),
      failure(deliver(stripeEvent('invoice.payment_failed', invoice))),
    ];

    // Whichever arrives first, each later one meets it on at least one id.
    for (const first of events) {
      for (const later of events) expect(sharesReference(first.payment.references, later.payment.references)).toBe(true);
    }
    expect(new Set(events.map((e) => e.payment.pspPaymentId))).toEqual(new Set(['pi_1']));
    expect(new Set(events.map((e) => e.payment.amount))).toEqual(new Set([2900]));
  });

  it('normalises currency to lowercase', () => {
    const event = failure(deliver(stripeEvent('charge.failed', { ...failedCharge, currency: 'EUR' })));

    expect(event.payment.currency).toBe('eur');
  });

  it('reads an expanded customer', () => {
    const expanded = { id: 'cus_1', object: 'customer', email: 'grace@example.com', name: 'Grace Hopper', address: { country: 'us' } };

    const event = failure(deliver(stripeEvent('charge.failed', { ...failedCharge, customer: expanded })));

    expect(event.customer).toEqual({ pspCustomerId: 'cus_1', email: 'grace@example.com', name: 'Grace Hopper', timezone: null, country: 'US', phone: null });
  });

  it('ignores a failure that belongs to no customer (nothing to recover it from)', () => {
    const event = deliver(stripeEvent('charge.failed', { ...failedCharge, customer: null }));

    expect(event).toEqual({ eventId: 'evt_charge_failed', occurredAt: new Date(CREATED * 1000).toISOString(), kind: 'ignored', type: 'charge.failed' });
  });
});

describe('Stripe recoveries, cancellations and card updates', () => {
  it('maps invoice.paid to payment_succeeded with the invoice and its payment ids', () => {
    const paid = { ...failedInvoice, status: 'paid', amount_paid: 2900, amount_remaining: 0, charge: 'ch_2' };

    expect(deliver(stripeEvent('invoice.paid', paid))).toEqual({
      eventId: 'evt_invoice_paid',
      occurredAt: new Date(CREATED * 1000).toISOString(),
      kind: 'payment_succeeded',
      customer: { pspCustomerId: 'cus_1', email: 'ada@example.com', name: 'Ada Lovelace', timezone: null, country: 'GB', phone: null },
      subscription: {
        pspSubscriptionId: 'sub_1',
        plan: 'price_pro_monthly',
        amount: 2900,
        currency: 'usd',
        status: null,
        currentPeriodEnd: new Date((CREATED + 2_592_000) * 1000).toISOString(),
      },
      references: ['pi_1', 'ch_2', 'in_1'],
      amount: 2900,
      currency: 'usd',
    });
  });

  it('maps payment_intent.succeeded to payment_succeeded', () => {
    const succeeded = { ...failedIntent, status: 'succeeded', amount_received: 2900, latest_charge: 'ch_2', last_payment_error: null };

    expect(deliver(stripeEvent('payment_intent.succeeded', succeeded))).toEqual({
      eventId: 'evt_payment_intent_succeeded',
      occurredAt: new Date(CREATED * 1000).toISOString(),
      kind: 'payment_succeeded',
      customer: { pspCustomerId: 'cus_1', email: null, name: null, timezone: null, country: null, phone: null },
      subscription: null,
      references: ['pi_1', 'ch_2', 'in_1'],
      amount: 2900,
      currency: 'usd',
    });
  });

  it('lets a recovery find the failure whichever event reports each', () => {
    const failures = [failedIntent, failedCharge, failedInvoice].map((object, i) =>
      failure(deliver(stripeEvent(['payment_intent.payment_failed', 'charge.failed', 'invoice.payment_failed'][i]!, object))),
    );
    const recoveries = [
      deliver(stripeEvent('invoice.paid', { ...failedInvoice, amount_paid: 2900, charge: 'ch_2' })),
      deliver(stripeEvent('payment_intent.succeeded', { ...failedIntent, latest_charge: 'ch_2', last_payment_error: null })),
    ];

    for (const recovery of recoveries) {
      if (recovery.kind !== 'payment_succeeded') throw new Error('expected payment_succeeded');
      for (const failed of failures) expect(sharesReference(recovery.references, failed.payment.references)).toBe(true);
    }
  });

  it('maps customer.subscription.deleted (period on the subscription, older API versions)', () => {
    const subscription = {
      id: 'sub_1',
      object: 'subscription',
      customer: 'cus_1',
      status: 'canceled',
      currency: 'usd',
      current_period_end: CREATED + 1000,
      items: {
        object: 'list',
        data: [
          { id: 'si_1', price: { id: 'price_pro_monthly', unit_amount: 2900 }, quantity: 1 },
          { id: 'si_2', price: { id: 'price_seat', unit_amount: 500 }, quantity: 3 },
        ],
      },
    };

    expect(deliver(stripeEvent('customer.subscription.deleted', subscription))).toEqual({
      eventId: 'evt_customer_subscription_deleted',
      occurredAt: new Date(CREATED * 1000).toISOString(),
      kind: 'subscription_canceled',
      customer: { pspCustomerId: 'cus_1', email: null, name: null, timezone: null, country: null, phone: null },
      subscription: {
        pspSubscriptionId: 'sub_1',
        plan: 'price_pro_monthly',
        amount: 4400,
        currency: 'usd',
        status: 'canceled',
        currentPeriodEnd: new Date((CREATED + 1000) * 1000).toISOString(),
      },
    });
  });

  it('maps customer.subscription.created like an update: a known customer gains the subscription', () => {
    const subscription = { id: 'sub_2', object: 'subscription', customer: 'cus_1', status: 'active', currency: 'usd', items: { data: [] } };
    expect(deliver(stripeEvent('customer.subscription.created', subscription))).toMatchObject({
      kind: 'subscription_updated',
      subscription: { pspSubscriptionId: 'sub_2', status: 'active' },
    });
  });

  it('maps customer.subscription.updated to the subscription as it now stands', () => {
    const subscription = {
      id: 'sub_1',
      object: 'subscription',
      customer: 'cus_1',
      status: 'past_due',
      currency: 'usd',
      items: { data: [{ id: 'si_1', price: { id: 'price_pro_monthly', unit_amount: 2900 }, quantity: 1, current_period_end: CREATED + 9000 }] },
    };
    expect(deliver(stripeEvent('customer.subscription.updated', subscription))).toEqual({
      eventId: 'evt_customer_subscription_updated',
      occurredAt: new Date(CREATED * 1000).toISOString(),
      kind: 'subscription_updated',
      customer: { pspCustomerId: 'cus_1', email: null, name: null, timezone: null, country: null, phone: null },
      subscription: {
        pspSubscriptionId: 'sub_1',
        plan: 'price_pro_monthly',
        amount: 2900,
        currency: 'usd',
        status: 'past_due',
        currentPeriodEnd: new Date((CREATED + 9000) * 1000).toISOString(),
      },
    });
  });

  it('maps customer.subscription.deleted with the period on the items (later API versions)', () => {
    const subscription = {
      id: 'sub_1',
      object: 'subscription',
      customer: { id: 'cus_1', object: 'customer', email: 'ada@example.com', name: 'Ada' },
      status: 'canceled',
      currency: 'EUR',
      items: { data: [{ id: 'si_1', price: { id: 'price_metered', unit_amount: null }, current_period_end: CREATED + 5000 }] },
    };

    const event = deliver(stripeEvent('customer.subscription.deleted', subscription));

    expect(event).toMatchObject({
      kind: 'subscription_canceled',
      customer: { pspCustomerId: 'cus_1', email: 'ada@example.com', name: 'Ada' },
      subscription: { plan: 'price_metered', amount: null, currency: 'eur', currentPeriodEnd: new Date((CREATED + 5000) * 1000).toISOString() },
    });
  });

  it.each(['payment_method.attached', 'payment_method.updated'])('maps %s to payment_method_updated', (type) => {
    expect(deliver(stripeEvent(type, paymentMethod))).toEqual({
      eventId: `evt_${type.replaceAll('.', '_')}`,
      occurredAt: new Date(CREATED * 1000).toISOString(),
      kind: 'payment_method_updated',
      customer: { pspCustomerId: 'cus_1', email: 'ada@example.com', name: 'Ada Lovelace', timezone: null, country: 'GB', phone: null },
      paymentMethod: { type: 'card', brand: 'visa', lastFour: '4242', expMonth: 8, expYear: 2031 },
    });
  });

  it('keeps the type of a payment method that is not a card', () => {
    const sepa = { id: 'pm_2', object: 'payment_method', type: 'sepa_debit', sepa_debit: { last4: '3000' }, billing_details: {}, customer: 'cus_1' };

    const event = deliver(stripeEvent('payment_method.attached', sepa));

    expect(event).toMatchObject({ kind: 'payment_method_updated', paymentMethod: { type: 'sepa_debit', brand: null, lastFour: null } });
  });

  it('ignores an update of a payment method that belongs to no customer', () => {
    expect(deliver(stripeEvent('payment_method.updated', { ...paymentMethod, customer: null })).kind).toBe('ignored');
  });

  const customer = {
    id: 'cus_1',
    object: 'customer',
    email: 'ada@example.com',
    name: 'Ada Lovelace',
    address: { country: 'GB' },
    invoice_settings: { default_payment_method: 'pm_2', custom_fields: null, footer: null },
  };

  it('maps customer.updated with a new default payment method; only the id is known, so the card details are null', () => {
    const event = deliver(
      stripeEvent('customer.updated', customer, {
        data: { object: customer, previous_attributes: { invoice_settings: { default_payment_method: 'pm_1' } } },
      }),
    );

    expect(event).toEqual({
      eventId: 'evt_customer_updated',
      occurredAt: new Date(CREATED * 1000).toISOString(),
      kind: 'payment_method_updated',
      customer: { pspCustomerId: 'cus_1', email: 'ada@example.com', name: 'Ada Lovelace', timezone: null, country: 'GB', phone: null },
      paymentMethod: { type: 'card', brand: null, lastFour: null, expMonth: null, expYear: null },
    });
  });

  it('reads the card of an expanded new default, also when there was no default before', () => {
    const expanded = { ...customer, invoice_settings: { default_payment_method: paymentMethod } };

    const event = deliver(
      stripeEvent('customer.updated', expanded, {
        data: { object: expanded, previous_attributes: { invoice_settings: { default_payment_method: null } } },
      }),
    );

    expect(event).toMatchObject({ kind: 'payment_method_updated', paymentMethod: { brand: 'visa', lastFour: '4242', expMonth: 8, expYear: 2031 } });
  });

  it('ignores customer.updated when the default payment method did not change, or was removed', () => {
    const emailChange = stripeEvent('customer.updated', customer, { data: { object: customer, previous_attributes: { email: 'old@example.com' } } });
    const removed = { ...customer, invoice_settings: { default_payment_method: null } };
    const removal = stripeEvent('customer.updated', removed, {
      data: { object: removed, previous_attributes: { invoice_settings: { default_payment_method: 'pm_1' } } },
    });

    expect(deliver(emailChange).kind).toBe('ignored');
    expect(deliver(removal).kind).toBe('ignored');
  });

  it.each(['customer.created', 'charge.succeeded', 'invoice.finalized', 'customer.deleted'])('ignores %s', (type) => {
    expect(deliver(stripeEvent(type, { id: 'x_1', object: 'whatever' }))).toEqual({
      eventId: `evt_${type.replaceAll('.', '_')}`,
      occurredAt: new Date(CREATED * 1000).toISOString(),
      kind: 'ignored',
      type,
    });
  });
});

describe('Stripe signature and payload checks', () => {
  const payload = JSON.stringify(stripeEvent('charge.failed', failedCharge));
  const header = (timestamp = NOW, secret = SECRET) => Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });

  it('refuses a signature made with another secret', () => {
    expect(rejection(() => parseStripeWebhook(payload, header(NOW, 'whsec_other'), SECRET, NOW)).message).toMatch(/signature verification failed/);
  });

  it('refuses a body changed after signing', () => {
    const tampered = payload.replace('"amount":2900', '"amount":290');

    expect(rejection(() => parseStripeWebhook(tampered, header(), SECRET, NOW)).message).toMatch(/No signatures found matching/);
  });

  it('refuses a missing or unreadable Stripe-Signature header', () => {
    expect(rejection(() => parseStripeWebhook(payload, undefined, SECRET, NOW)).message).toBe('Missing Stripe-Signature header.');
    expect(rejection(() => parseStripeWebhook(payload, 'garbage', SECRET, NOW)).message).toMatch(/Unable to extract timestamp/);
  });

  it('accepts a signature 300 s old by the service clock and refuses one 301 s old', () => {
    expect(parseStripeWebhook(payload, header(NOW - 300), SECRET, NOW).kind).toBe('payment_failed');
    expect(rejection(() => parseStripeWebhook(payload, header(NOW - 301), SECRET, NOW)).message).toMatch(/Timestamp outside the tolerance zone/);
  });

  it('accepts a signature 300 s ahead of the service clock and refuses one 301 s ahead', () => {
    expect(parseStripeWebhook(payload, header(NOW + 300), SECRET, NOW).kind).toBe('payment_failed');
    expect(rejection(() => parseStripeWebhook(payload, header(NOW + 301), SECRET, NOW)).message).toMatch(/in the future/);
  });

  it('refuses a signed body that is not JSON', () => {
    expect(rejection(() => deliver('{"id": "evt_1", "type": ')).message).toBe('Stripe webhook body is not valid JSON.');
  });

  it('refuses an event without data.object', () => {
    const { data: _data, ...noData } = stripeEvent('charge.failed', failedCharge);

    expect(rejection(() => deliver(noData)).message).toBe('Malformed Stripe event: data: Invalid input: expected object, received undefined');
  });

  it('refuses consumed objects that lack what the mapping needs, naming the field', () => {
    const { amount: _amount, ...noAmount } = failedIntent;

    expect(rejection(() => deliver(stripeEvent('payment_intent.payment_failed', noAmount))).message).toBe(
      'Malformed payment_intent.payment_failed data.object: amount: Invalid input: expected number, received undefined',
    );
    expect(rejection(() => deliver(stripeEvent('charge.failed', { ...failedCharge, currency: 'dollars' }))).message).toBe(
      'Malformed charge.failed data.object: currency: must be a three-letter ISO 4217 code',
    );
    expect(rejection(() => deliver(stripeEvent('customer.subscription.deleted', { id: 'sub_1', status: 'canceled', currency: 'usd' }))).message).toMatch(
      /^Malformed customer\.subscription\.deleted data\.object: customer: /,
    );
  });

  it('does not look inside events it ignores', () => {
    expect(deliver(stripeEvent('balance.available', { object: 'balance', available: 'not what Stripe sends' })).kind).toBe('ignored');
  });

  it('never throws anything but WebhookRejected for signed bodies of any shape (property)', () => {
    const consumed = fc.constantFrom(
      'payment_intent.payment_failed',
      'charge.failed',
      'invoice.payment_failed',
      'invoice.paid',
      'payment_intent.succeeded',
      'customer.subscription.deleted',
      'payment_method.attached',
      'customer.updated',
    );
    const bodies = fc.oneof(
      fc.string(),
      fc.jsonValue().map((value) => JSON.stringify(value)),
      fc
        .record({ id: fc.string(), type: consumed, created: fc.oneof(fc.integer(), fc.double()), data: fc.record({ object: fc.anything(), previous_attributes: fc.anything() }) }, { requiredKeys: [] })
        .map((value) => JSON.stringify(value)),
    );

    fc.assert(
      fc.property(bodies, (body) => {
        const signature = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET, timestamp: NOW });
        try {
          parseStripeWebhook(body, signature, SECRET, NOW);
        } catch (err) {
          expect(err).toBeInstanceOf(WebhookRejected);
        }
      }),
      { numRuns: 300 },
    );
  });
});
