import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WebhookRejected, type ProcessorEvent } from '../../shared/model/processor-event.ts';
import { parseGenericWebhook, signGenericPayload, verifyGenericSignature } from '../../shared/processors/generic-webhook.ts';

const SECRET = 'generic_unit_secret_0123456789';
const NOW = 1_900_000_000;

/** Signed as docs/webhooks-inbound.md tells senders to, independently of signGenericPayload. */
const documentedSignature = (body: string, timestamp: number, secret = SECRET): string =>
  `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;

function deliver(event: object | string, options: { timestamp?: number; now?: number } = {}): ProcessorEvent {
  const body = typeof event === 'string' ? event : JSON.stringify(event);
  return parseGenericWebhook(body, documentedSignature(body, options.timestamp ?? NOW), SECRET, options.now ?? NOW);
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

const customer = { id: 'cust_1', email: 'ada@example.com', name: 'Ada Lovelace', timezone: 'Europe/London' };
const subscription = { id: 'subx_1', plan: 'pro', amount: 2900, currency: 'EUR', status: 'past_due', current_period_end: '2030-04-17T00:00:00+02:00' };
const payment = { id: 'chg_1', amount: 2900, currency: 'EUR', decline_code: 'insufficient_funds' };
const paymentMethod = { type: 'card', brand: 'visa', last_four: '4242', exp_month: 12, exp_year: 2031 };
const occurredAt = new Date((NOW - 5) * 1000).toISOString();

const failedEvent = { id: 'evt_1', type: 'payment.failed', created: NOW - 5, customer, subscription, payment, payment_method: paymentMethod };

describe('generic webhook events', () => {
  it('reads the optional card network codes and card fingerprint of payment.failed', () => {
    const event = deliver({
      ...failedEvent,
      payment: { ...payment, network_decline_code: 'R1', network_advice_code: '21' },
      payment_method: { ...paymentMethod, fingerprint: 'card_fp_1' },
    });
    expect(event).toMatchObject({ payment: { network: { declineCode: 'R1', adviceCode: '21' } }, paymentMethod: { fingerprint: 'card_fp_1' } });
  });

  it.each([['network_decline_code', '0512'], ['network_advice_code', 'a-1'], ['network_advice_code', 3]])('refuses a malformed %s (%s)', (field, value) => {
    const error = rejection(() => deliver({ ...failedEvent, payment: { ...payment, [field]: value } }));
    expect(error.message).toContain(`payment.${field}`);
  });

  it('maps payment.failed', () => {
    expect(deliver(failedEvent)).toEqual({
      eventId: 'evt_1',
      occurredAt,
      kind: 'payment_failed',
      customer: { pspCustomerId: 'cust_1', email: 'ada@example.com', name: 'Ada Lovelace', timezone: 'Europe/London', country: null, phone: null },
      subscription: {
        pspSubscriptionId: 'subx_1',
        plan: 'pro',
        amount: 2900,
        currency: 'eur',
        status: 'past_due',
        currentPeriodEnd: '2030-04-16T22:00:00.000Z',
      },
      payment: { pspPaymentId: 'chg_1', references: ['chg_1'], amount: 2900, currency: 'eur', declineCode: 'insufficient_funds' },
      paymentMethod: { type: 'card', brand: 'visa', lastFour: '4242', expMonth: 12, expYear: 2031 },
    });
  });

  it('accepts the least a payment.failed needs: customer id, payment id, amount and currency', () => {
    const minimal = { id: 'evt_2', type: 'payment.failed', created: NOW, customer: { id: 'cust_1' }, payment: { id: 'chg_1', amount: 0, currency: 'usd', decline_code: null } };

    expect(deliver(minimal)).toEqual({
      eventId: 'evt_2',
      occurredAt: new Date(NOW * 1000).toISOString(),
      kind: 'payment_failed',
      customer: { pspCustomerId: 'cust_1', email: null, name: null, timezone: null, country: null, phone: null },
      subscription: null,
      payment: { pspPaymentId: 'chg_1', references: ['chg_1'], amount: 0, currency: 'usd', declineCode: null },
      paymentMethod: null,
    });
  });

  it('accepts current_period_end as unix seconds too', () => {
    const event = deliver({ ...failedEvent, subscription: { ...subscription, current_period_end: 1_902_000_000 } });

    expect(event).toMatchObject({ subscription: { currentPeriodEnd: new Date(1_902_000_000 * 1000).toISOString() } });
  });

  it('maps payment.succeeded, referring to the failed payment by its id', () => {
    const succeeded = { id: 'evt_3', type: 'payment.succeeded', created: NOW - 5, customer, subscription, payment: { id: 'chg_1', amount: 2900, currency: 'EUR' } };

    expect(deliver(succeeded)).toEqual({
      eventId: 'evt_3',
      occurredAt,
      kind: 'payment_succeeded',
      customer: { pspCustomerId: 'cust_1', email: 'ada@example.com', name: 'Ada Lovelace', timezone: 'Europe/London', country: null, phone: null },
      subscription: {
        pspSubscriptionId: 'subx_1',
        plan: 'pro',
        amount: 2900,
        currency: 'eur',
        status: 'past_due',
        currentPeriodEnd: '2030-04-16T22:00:00.000Z',
      },
      references: ['chg_1'],
      amount: 2900,
      currency: 'eur',
    });
  });

  it('maps payment.succeeded without amount or currency', () => {
    const succeeded = { id: 'evt_4', type: 'payment.succeeded', created: NOW, customer: { id: 'cust_1' }, payment: { id: 'chg_1' } };

    expect(deliver(succeeded)).toMatchObject({ kind: 'payment_succeeded', references: ['chg_1'], amount: null, currency: null, subscription: null });
  });

  it('maps payment_method.updated', () => {
    const updated = { id: 'evt_5', type: 'payment_method.updated', created: NOW - 5, customer, payment_method: { type: 'card', brand: 'mastercard', last_four: '0005', exp_month: 1, exp_year: 2033 } };

    expect(deliver(updated)).toEqual({
      eventId: 'evt_5',
      occurredAt,
      kind: 'payment_method_updated',
      customer: { pspCustomerId: 'cust_1', email: 'ada@example.com', name: 'Ada Lovelace', timezone: 'Europe/London', country: null, phone: null },
      paymentMethod: { type: 'card', brand: 'mastercard', lastFour: '0005', expMonth: 1, expYear: 2033 },
    });
  });

  it('maps subscription.canceled', () => {
    const canceled = { id: 'evt_6', type: 'subscription.canceled', created: NOW - 5, customer, subscription: { ...subscription, status: 'canceled' } };

    expect(deliver(canceled)).toEqual({
      eventId: 'evt_6',
      occurredAt,
      kind: 'subscription_canceled',
      customer: { pspCustomerId: 'cust_1', email: 'ada@example.com', name: 'Ada Lovelace', timezone: 'Europe/London', country: null, phone: null },
      subscription: {
        pspSubscriptionId: 'subx_1',
        plan: 'pro',
        amount: 2900,
        currency: 'eur',
        status: 'canceled',
        currentPeriodEnd: '2030-04-16T22:00:00.000Z',
      },
    });
  });

  it.each(['payment.refunded', 'customer.created', 'anything'])('ignores %s', (type) => {
    expect(deliver({ id: 'evt_7', type, created: NOW, whatever: { shape: true } })).toEqual({ eventId: 'evt_7', occurredAt: new Date(NOW * 1000).toISOString(), kind: 'ignored', type });
  });

  it('ignores fields it does not know', () => {
    expect(deliver({ ...failedEvent, livemode: true, payment: { ...payment, processor_raw: { x: 1 } } }).kind).toBe('payment_failed');
  });
});

describe('generic webhook payload validation', () => {
  it.each([
    ['payment.failed without payment.currency', { ...failedEvent, payment: { id: 'chg_1', amount: 2900 } }, 'payment.currency: Invalid input: expected string, received undefined'],
    ['payment.failed without payment', { ...failedEvent, payment: undefined }, 'payment: Invalid input: expected object, received undefined'],
    ['payment.failed without customer.id', { ...failedEvent, customer: { email: 'ada@example.com' } }, 'customer.id: Invalid input: expected string, received undefined'],
    ['a fractional amount', { ...failedEvent, payment: { ...payment, amount: 29.99 } }, 'payment.amount: must be an integer in the smallest currency unit'],
    ['a negative amount', { ...failedEvent, payment: { ...payment, amount: -1 } }, 'payment.amount: must not be negative'],
    ['a currency name', { ...failedEvent, payment: { ...payment, currency: 'euro' } }, 'payment.currency: must be a three-letter ISO 4217 code'],
    ['an unknown timezone', { ...failedEvent, customer: { ...customer, timezone: 'Mars/Olympus' } }, 'customer.timezone: must be an IANA time zone such as Europe/Paris'],
    ['an email without @', { ...failedEvent, customer: { ...customer, email: 'ada' } }, 'customer.email: must be an email address'],
    ['a bad period end', { ...failedEvent, subscription: { ...subscription, current_period_end: 'next month' } }, 'subscription.current_period_end: must be an ISO 8601 date-time or unix seconds'],
    ['a five-digit last_four', { ...failedEvent, payment_method: { ...paymentMethod, last_four: '42424' } }, 'payment_method.last_four: must be 4 digits'],
    ['subscription.canceled without subscription', { id: 'e', type: 'subscription.canceled', created: NOW, customer }, 'subscription: Invalid input: expected object, received undefined'],
    ['payment_method.updated without payment_method', { id: 'e', type: 'payment_method.updated', created: NOW, customer }, 'payment_method: Invalid input: expected object, received undefined'],
    ['created in milliseconds', { ...failedEvent, created: NOW * 1000 }, 'created: must be unix seconds'],
    ['no id', { ...failedEvent, id: undefined }, 'id: Invalid input: expected string, received undefined'],
  ])('refuses %s', (_case, event, message) => {
    expect(rejection(() => deliver(event)).message).toBe(`Malformed webhook payload: ${message}`);
  });

  it('refuses a body that is not JSON, or not an object', () => {
    expect(rejection(() => deliver('{"id": "evt_1",')).message).toBe('Webhook body is not valid JSON.');
    expect(rejection(() => deliver('[1, 2]')).message).toBe('Malformed webhook payload: Invalid input: expected object, received array');
  });
});

describe('X-Recovery-Signature', () => {
  const body = JSON.stringify(failedEvent);

  it('is what signGenericPayload produces, as documented', () => {
    expect(signGenericPayload(SECRET, body, NOW)).toBe(documentedSignature(body, NOW));
  });

  it('is refused when missing, without t=, with two t=, or without a v1 signature', () => {
    const v1 = documentedSignature(body, NOW).split(',')[1]!;

    expect(rejection(() => parseGenericWebhook(body, undefined, SECRET, NOW)).message).toBe('Missing X-Recovery-Signature header.');
    expect(rejection(() => parseGenericWebhook(body, v1, SECRET, NOW)).message).toBe('X-Recovery-Signature has no t= timestamp.');
    expect(rejection(() => parseGenericWebhook(body, `t=${NOW},t=${NOW},${v1}`, SECRET, NOW)).message).toBe('X-Recovery-Signature has more than one t=.');
    expect(rejection(() => parseGenericWebhook(body, `t=${NOW}`, SECRET, NOW)).message).toBe('X-Recovery-Signature has no v1= signature (64 hex digits).');
    expect(rejection(() => parseGenericWebhook(body, `t=soon,${v1}`, SECRET, NOW)).message).toBe('X-Recovery-Signature t= must be unix seconds.');
  });

  it('is checked over t exactly as sent', () => {
    const padded = `0${NOW}`;
    const v1 = createHmac('sha256', SECRET).update(`${padded}.${body}`).digest('hex');

    expect(parseGenericWebhook(body, `t=${padded},v1=${v1}`, SECRET, NOW).kind).toBe('payment_failed');
  });

  it('is refused when made with another secret', () => {
    expect(rejection(() => parseGenericWebhook(body, documentedSignature(body, NOW, 'other'), SECRET, NOW)).message).toBe(
      'No X-Recovery-Signature v1 signature matches the body.',
    );
  });

  it('accepts any matching v1 among several, for secret rotation', () => {
    const old = documentedSignature(body, NOW, 'old_secret').split(',')[1]!;
    const current = documentedSignature(body, NOW).split(',')[1]!;

    expect(parseGenericWebhook(body, `t=${NOW},${old},${current}`, SECRET, NOW).kind).toBe('payment_failed');
    expect(parseGenericWebhook(body, `t=${NOW}, ${current}, v0=unknownscheme, ${old}`, SECRET, NOW).kind).toBe('payment_failed');
  });

  it('accepts a timestamp 300 s either side of the service clock and refuses 301 s', () => {
    expect(deliver(failedEvent, { timestamp: NOW - 300 }).kind).toBe('payment_failed');
    expect(deliver(failedEvent, { timestamp: NOW + 300 }).kind).toBe('payment_failed');
    expect(rejection(() => deliver(failedEvent, { timestamp: NOW - 301 })).message).toBe(
      'X-Recovery-Signature timestamp is more than 300 seconds away from the current time.',
    );
    expect(rejection(() => deliver(failedEvent, { timestamp: NOW + 301 })).message).toBe(
      'X-Recovery-Signature timestamp is more than 300 seconds away from the current time.',
    );
  });

  it('verifies any body signed with the secret within the tolerance (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.integer({ min: -300, max: 300 }), fc.string({ minLength: 1 }), (anyBody, skew, secret) => {
        verifyGenericSignature(anyBody, signGenericPayload(secret, anyBody, NOW + skew), secret, NOW);
      }),
    );
  });

  it('fails verification after any single-byte change to the body (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary-ascii', minLength: 1 }),
        fc.nat(),
        fc.integer({ min: 1, max: 127 }),
        (anyBody, position, delta) => {
          const index = position % anyBody.length;
          const changed = String.fromCharCode((anyBody.charCodeAt(index) + delta) % 128);
          const tampered = anyBody.slice(0, index) + changed + anyBody.slice(index + 1);
          const header = signGenericPayload(SECRET, anyBody, NOW);

          expect(rejection(() => verifyGenericSignature(tampered, header, SECRET, NOW)).message).toBe(
            'No X-Recovery-Signature v1 signature matches the body.',
          );
        },
      ),
    );
  });

  it('never throws anything but WebhookRejected, whatever the body and header (property)', () => {
    const bodies = fc.oneof(
      fc.string({ unit: 'grapheme' }),
      fc.json(),
      fc.jsonValue().map((value) => JSON.stringify(value)),
      fc
        .record({
          id: fc.oneof(fc.string(), fc.integer()),
          type: fc.constantFrom('payment.failed', 'payment.succeeded', 'payment_method.updated', 'subscription.canceled', 'other'),
          created: fc.oneof(fc.integer(), fc.double(), fc.string()),
          customer: fc.oneof(fc.anything(), fc.record({ id: fc.string(), timezone: fc.string(), email: fc.string() }, { requiredKeys: [] })),
          payment: fc.oneof(fc.anything(), fc.record({ id: fc.string(), amount: fc.oneof(fc.integer(), fc.double()), currency: fc.string() }, { requiredKeys: [] })),
          subscription: fc.oneof(fc.anything(), fc.record({ id: fc.string(), current_period_end: fc.oneof(fc.string(), fc.integer()) }, { requiredKeys: [] })),
          payment_method: fc.anything(),
        }, { requiredKeys: [] })
        .map((value) => JSON.stringify(value)),
    );
    const headers = (anyBody: string) =>
      fc.oneof(fc.constant(signGenericPayload(SECRET, anyBody, NOW)), fc.string(), fc.constant(undefined));

    fc.assert(
      fc.property(
        bodies.chain((anyBody) => fc.tuple(fc.constant(anyBody), headers(anyBody))),
        ([anyBody, header]) => {
          try {
            parseGenericWebhook(anyBody, header, SECRET, NOW);
          } catch (err) {
            expect(err).toBeInstanceOf(WebhookRejected);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
