import braintree from 'braintree';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WebhookRejected, type ProcessorEvent } from '../../shared/model/processor-event.ts';
import { subscriptionReference } from '../../shared/processors/braintree-references.ts';
import { parseBraintreeWebhook, toMinorUnits } from '../../shared/processors/braintree-webhook.ts';
import {
  notificationXml,
  signBraintreePayload,
  signedBraintreeNotification,
  subscriptionXml,
  type SubscriptionXml,
  type TransactionXml,
} from '../support/braintree-signing.ts';

const CREDENTIALS = { merchantId: 'merchant_unit', publicKey: 'public_unit', privateKey: 'private_unit_0123456789' };
const TIMESTAMP = '2030-03-17T17:46:40Z';

const officialTestGateway = new braintree.BraintreeGateway({ environment: braintree.Environment.Sandbox, ...CREDENTIALS });

const failedTransaction: TransactionXml = {
  id: 'txn_failed',
  amount: '12.50',
  currencyIsoCode: 'USD',
  status: 'processor_declined',
  processorResponseCode: '2001',
  createdAt: '2030-03-17T17:45:00Z',
  customer: { id: 'cust_1', email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' },
  creditCard: { cardType: 'Visa', last4: '1111', expirationMonth: '09', expirationYear: '2031' },
  billingCountry: 'gb',
};

const pastDueSubscription: SubscriptionXml = {
  id: 'sub_1',
  planId: 'pro-monthly',
  price: '12.50',
  status: 'Past Due',
  billingPeriodStartDate: '2030-03-17',
  billingPeriodEndDate: '2030-04-16',
  transactions: [failedTransaction],
};

function deliver(kind: string, subscription: SubscriptionXml, timestamp = TIMESTAMP): ProcessorEvent {
  const signed = signedBraintreeNotification(notificationXml(kind, timestamp, subscriptionXml(subscription)), CREDENTIALS);
  return parseBraintreeWebhook(signed.bt_signature, signed.bt_payload, CREDENTIALS);
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

describe('Braintree subscription notifications', () => {
  it('maps subscription_charged_unsuccessfully from the latest transaction', () => {
    const event = deliver('subscription_charged_unsuccessfully', pastDueSubscription);

    expect(event).toEqual({
      eventId: `bt:subscription_charged_unsuccessfully:${TIMESTAMP}:sub_1:txn_failed`,
      occurredAt: '2030-03-17T17:46:40.000Z',
      kind: 'payment_failed',
      customer: { pspCustomerId: 'cust_1', email: 'ada@example.com', name: 'Ada Lovelace', timezone: null, country: 'GB', phone: null },
      subscription: {
        pspSubscriptionId: 'sub_1',
        plan: 'pro-monthly',
        amount: 1250,
        currency: 'usd',
        status: 'past_due',
        currentPeriodEnd: '2030-04-17T00:00:00.000Z',
      },
      payment: {
        pspPaymentId: 'txn_failed',
        references: ['txn_failed', 'sub:sub_1:2030-03-17'],
        amount: 1250,
        currency: 'usd',
        declineCode: '2001',
      },
      paymentMethod: { type: 'card', brand: 'Visa', lastFour: '1111', expMonth: 9, expYear: 2031 },
    });
  });

  it('captures the network response code, the merchant advice code and the card\'s unique number identifier', () => {
    const answered = { ...failedTransaction, networkResponseCode: '51', merchantAdviceCode: '02', creditCard: { ...failedTransaction.creditCard, uniqueNumberIdentifier: 'bt_unique_1' } };
    const event = deliver('subscription_charged_unsuccessfully', { ...pastDueSubscription, transactions: [answered] });
    expect(event).toMatchObject({
      payment: { declineCode: '2001', network: { declineCode: '51', adviceCode: '02' } },
      paymentMethod: { brand: 'Visa', lastFour: '1111', fingerprint: 'bt_unique_1' },
    });
  });

  it('picks the newest transaction by createdAt, wherever it is in the list', () => {
    const older: TransactionXml = { ...failedTransaction, id: 'txn_old', status: 'settled', processorResponseCode: '1000', createdAt: '2030-02-15T10:00:00Z' };

    const event = deliver('subscription_charged_unsuccessfully', { ...pastDueSubscription, transactions: [older, failedTransaction] });

    expect(event).toMatchObject({ kind: 'payment_failed', payment: { pspPaymentId: 'txn_failed', declineCode: '2001' } });
  });

  it('has no decline code when the processor gave none (a gateway rejection)', () => {
    const rejected: TransactionXml = { ...failedTransaction, status: 'gateway_rejected', processorResponseCode: '' };

    const event = deliver('subscription_charged_unsuccessfully', { ...pastDueSubscription, transactions: [rejected] });

    expect(event).toMatchObject({ kind: 'payment_failed', payment: { declineCode: null } });
  });

  it('maps subscription_charged_successfully so that it meets the failure of the same billing period', () => {
    const success: TransactionXml = { ...failedTransaction, id: 'txn_paid', status: 'submitted_for_settlement', processorResponseCode: '1000', createdAt: '2030-03-20T09:00:00Z' };
    const failed = deliver('subscription_charged_unsuccessfully', pastDueSubscription);

    const paid = deliver('subscription_charged_successfully', {
      ...pastDueSubscription,
      status: 'Active',
      transactions: [success, failedTransaction],
    }, '2030-03-20T09:00:05Z');

    expect(paid).toEqual({
      eventId: 'bt:subscription_charged_successfully:2030-03-20T09:00:05Z:sub_1:txn_paid',
      occurredAt: '2030-03-20T09:00:05.000Z',
      kind: 'payment_succeeded',
      customer: { pspCustomerId: 'cust_1', email: 'ada@example.com', name: 'Ada Lovelace', timezone: null, country: 'GB', phone: null },
      subscription: {
        pspSubscriptionId: 'sub_1',
        plan: 'pro-monthly',
        amount: 1250,
        currency: 'usd',
        status: 'active',
        currentPeriodEnd: '2030-04-17T00:00:00.000Z',
      },
      references: ['txn_paid', 'sub:sub_1:2030-03-17'],
      amount: 1250,
      currency: 'usd',
    });
    if (failed.kind !== 'payment_failed' || paid.kind !== 'payment_succeeded') throw new Error('unexpected kinds');
    expect(paid.references.filter((id) => failed.payment.references.includes(id))).toEqual([subscriptionReference('sub_1', '2030-03-17')]);
  });

  it('keeps failures of different billing periods apart', () => {
    const march = deliver('subscription_charged_unsuccessfully', pastDueSubscription);
    const april = deliver('subscription_charged_unsuccessfully', {
      ...pastDueSubscription,
      billingPeriodStartDate: '2030-04-17',
      billingPeriodEndDate: '2030-05-16',
      transactions: [{ ...failedTransaction, id: 'txn_april', createdAt: '2030-04-17T06:00:00Z' }],
    });

    if (march.kind !== 'payment_failed' || april.kind !== 'payment_failed') throw new Error('unexpected kinds');
    expect(march.payment.references.some((id) => april.payment.references.includes(id))).toBe(false);
  });

  it('maps subscription_canceled, the customer taken from its transactions', () => {
    const event = deliver('subscription_canceled', { ...pastDueSubscription, status: 'Canceled' });

    expect(event).toEqual({
      eventId: `bt:subscription_canceled:${TIMESTAMP}:sub_1:txn_failed`,
      occurredAt: '2030-03-17T17:46:40.000Z',
      kind: 'subscription_canceled',
      customer: { pspCustomerId: 'cust_1', email: 'ada@example.com', name: 'Ada Lovelace', timezone: null, country: 'GB', phone: null },
      subscription: {
        pspSubscriptionId: 'sub_1',
        plan: 'pro-monthly',
        amount: 1250,
        currency: 'usd',
        status: 'canceled',
        currentPeriodEnd: '2030-04-17T00:00:00.000Z',
      },
    });
  });

  it.each([
    ['subscription_went_past_due', 'Past Due', 'past_due'],
    ['subscription_went_active', 'Active', 'active'],
    ['subscription_expired', 'Expired', 'expired'],
  ])('maps %s to the subscription as it now stands', (kind, braintreeStatus, status) => {
    const event = deliver(kind, { ...pastDueSubscription, status: braintreeStatus });
    expect(event).toMatchObject({
      eventId: `bt:${kind}:${TIMESTAMP}:sub_1:txn_failed`,
      kind: 'subscription_updated',
      customer: { pspCustomerId: 'cust_1' },
      subscription: { pspSubscriptionId: 'sub_1', status, currentPeriodEnd: '2030-04-17T00:00:00.000Z' },
    });
  });

  it('converts amounts by the currency minor unit', () => {
    const yen = deliver('subscription_charged_unsuccessfully', {
      ...pastDueSubscription,
      price: '1250',
      transactions: [{ ...failedTransaction, amount: '1250', currencyIsoCode: 'JPY' }],
    });
    const dinar = deliver('subscription_charged_unsuccessfully', {
      ...pastDueSubscription,
      price: '1.250',
      transactions: [{ ...failedTransaction, amount: '1.250', currencyIsoCode: 'BHD' }],
    });

    expect(yen).toMatchObject({ payment: { amount: 1250, currency: 'jpy' }, subscription: { amount: 1250, currency: 'jpy' } });
    expect(dinar).toMatchObject({ payment: { amount: 1250, currency: 'bhd' }, subscription: { amount: 1250, currency: 'bhd' } });
  });

  it('derives the same event id from the same delivery, and another from another notification', () => {
    const first = deliver('subscription_charged_unsuccessfully', pastDueSubscription);
    const redelivery = deliver('subscription_charged_unsuccessfully', pastDueSubscription);
    const later = deliver('subscription_charged_unsuccessfully', pastDueSubscription, '2030-03-17T18:00:00Z');

    expect(redelivery.eventId).toBe(first.eventId);
    expect(later.eventId).not.toBe(first.eventId);
  });
});

describe('Braintree notifications from the package’s own webhook testing', () => {
  const sample = (kind: braintree.WebhookNotificationKind, id = 'sub_sample') => officialTestGateway.webhookTesting.sampleNotification(kind, id);

  it('signs exactly as the helpers in test/support do', async () => {
    const official = await sample('subscription_went_past_due');

    expect(signBraintreePayload(official.bt_payload, CREDENTIALS)).toBe(official.bt_signature);
  });

  it.each(['check', 'subscription_went_past_due', 'subscription_went_active', 'transaction_settled', 'dispute_opened'] as const)(
    'ignores %s',
    async (kind) => {
      const official = await sample(kind);

      const event = parseBraintreeWebhook(official.bt_signature, official.bt_payload, CREDENTIALS);

      expect(event).toMatchObject({ kind: 'ignored', type: kind });
      expect(event.eventId).toMatch(new RegExp(`^bt:${kind}:`));
    },
  );

  it('ignores a cancellation that names no transaction, hence no customer (a subscription never charged)', async () => {
    const official = await sample('subscription_canceled');

    expect(parseBraintreeWebhook(official.bt_signature, official.bt_payload, CREDENTIALS)).toMatchObject({
      kind: 'ignored',
      type: 'subscription_canceled',
    });
  });

  it('refuses the package’s charge samples, which carry no customer', async () => {
    const official = await sample('subscription_charged_unsuccessfully');

    const refused = rejection(() => parseBraintreeWebhook(official.bt_signature, official.bt_payload, CREDENTIALS));

    expect(refused.message).toBe('Malformed Braintree subscription_charged_unsuccessfully: the transaction names no customer id.');
  });
});

describe('Braintree signature and payload checks', () => {
  const valid = () => signedBraintreeNotification(notificationXml('subscription_charged_unsuccessfully', TIMESTAMP, subscriptionXml(pastDueSubscription)), CREDENTIALS);

  it('refuses a signature made with another private key', () => {
    const forged = signedBraintreeNotification(
      notificationXml('subscription_charged_unsuccessfully', TIMESTAMP, subscriptionXml(pastDueSubscription)),
      { ...CREDENTIALS, privateKey: 'someone_else' },
    );

    expect(rejection(() => parseBraintreeWebhook(forged.bt_signature, forged.bt_payload, CREDENTIALS)).message).toMatch(
      /^Braintree signature verification failed: signature does not match payload/,
    );
  });

  it('refuses a signature for another public key', () => {
    const forged = signedBraintreeNotification(
      notificationXml('subscription_charged_unsuccessfully', TIMESTAMP, subscriptionXml(pastDueSubscription)),
      { ...CREDENTIALS, publicKey: 'public_other' },
    );

    expect(rejection(() => parseBraintreeWebhook(forged.bt_signature, forged.bt_payload, CREDENTIALS)).message).toMatch(
      /^Braintree signature verification failed: no matching public key$/,
    );
  });

  it('refuses a payload changed after signing', () => {
    const { bt_signature, bt_payload } = valid();
    const tampered = signedBraintreeNotification(
      notificationXml('subscription_charged_unsuccessfully', TIMESTAMP, subscriptionXml({ ...pastDueSubscription, price: '1.00' })),
      CREDENTIALS,
    ).bt_payload;

    expect(tampered).not.toBe(bt_payload);
    expect(rejection(() => parseBraintreeWebhook(bt_signature, tampered, CREDENTIALS)).message).toMatch(/^Braintree signature verification failed: signature does not match/);
  });

  it('refuses empty or illegal input', () => {
    const { bt_signature, bt_payload } = valid();

    expect(rejection(() => parseBraintreeWebhook('', bt_payload, CREDENTIALS)).message).toMatch(/^Braintree signature verification failed: signature parameter is required$/);
    expect(rejection(() => parseBraintreeWebhook(bt_signature, '', CREDENTIALS)).message).toMatch(/^Braintree signature verification failed: payload parameter is required$/);
    expect(rejection(() => parseBraintreeWebhook(bt_signature, `${bt_payload}<x>`, CREDENTIALS)).message).toMatch(/^Braintree signature verification failed: payload contains illegal characters$/);
  });

  it('refuses a correctly signed payload that is not XML', () => {
    const signed = signedBraintreeNotification('<notification><kind>check', CREDENTIALS);

    expect(rejection(() => parseBraintreeWebhook(signed.bt_signature, signed.bt_payload, CREDENTIALS)).message).toMatch(
      /^Braintree webhook payload could not be decoded: unclosed element <kind> at the end of the document$/,
    );
  });

  it('refuses a subscription notification without a transactions element', () => {
    const signed = signedBraintreeNotification(notificationXml('subscription_canceled', TIMESTAMP, '<subscription><id>sub_1</id></subscription>'), CREDENTIALS);

    expect(rejection(() => parseBraintreeWebhook(signed.bt_signature, signed.bt_payload, CREDENTIALS)).message).toBe(
      'Malformed Braintree subscription_canceled subscription: transactions: Invalid input: expected array, received undefined',
    );
  });

  it('refuses a notification without a timestamp', () => {
    const signed = signedBraintreeNotification('<notification><kind>check</kind><subject><check type="boolean">true</check></subject></notification>', CREDENTIALS);

    expect(rejection(() => parseBraintreeWebhook(signed.bt_signature, signed.bt_payload, CREDENTIALS)).message).toBe(
      'Malformed Braintree notification: timestamp: Invalid input: expected string, received undefined',
    );
  });

  it('refuses charge notifications missing what a payment needs', () => {
    const noCurrency = { ...failedTransaction, currencyIsoCode: undefined };
    const badAmount = { ...failedTransaction, amount: '12.505' };

    expect(rejection(() => deliver('subscription_charged_unsuccessfully', { ...pastDueSubscription, transactions: [] })).message).toBe(
      'Malformed Braintree subscription_charged_unsuccessfully: the subscription has no transaction.',
    );
    expect(rejection(() => deliver('subscription_charged_successfully', { ...pastDueSubscription, transactions: [noCurrency] })).message).toBe(
      'Malformed Braintree subscription_charged_successfully: the transaction has no currencyIsoCode.',
    );
    expect(rejection(() => deliver('subscription_charged_unsuccessfully', { ...pastDueSubscription, transactions: [badAmount] })).message).toBe(
      "Malformed Braintree amount '12.505': USD has 2 decimal places.",
    );
  });
});

describe('toMinorUnits', () => {
  it.each([
    ['12.50', 'USD', 1250],
    ['12.5', 'usd', 1250],
    ['0.01', 'EUR', 1],
    ['49.99', 'GBP', 4999],
    ['1250', 'JPY', 1250],
    ['1250.00', 'JPY', 1250],
    ['1.250', 'KWD', 1250],
    ['7', 'USD', 700],
    ['0.07', 'USD', 7],
    ['1.10', 'USD', 110],
  ])('%s %s is %i', (amount, currency, minor) => {
    expect(toMinorUnits(amount, currency)).toBe(minor);
  });

  it.each([['12.505', 'USD'], ['12.5', 'JPY'], ['-1.00', 'USD'], ['1e3', 'USD'], ['', 'USD'], ['12,50', 'EUR'], ['99999999999999999', 'USD']])(
    'refuses %s %s',
    (amount, currency) => {
      expect(() => toMinorUnits(amount, currency)).toThrow(WebhookRejected);
    },
  );

  it('is exact for every amount a decimal string can state (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e13 }),
        fc.constantFrom(['USD', 2] as const, ['JPY', 0] as const, ['BHD', 3] as const, ['EUR', 2] as const),
        fc.nat({ max: 3 }),
        (minor, [currency, digits], extraZeros) => {
          const padded = String(minor).padStart(digits + 1, '0');
          const whole = padded.slice(0, padded.length - digits);
          const fraction = padded.slice(padded.length - digits) + '0'.repeat(extraZeros);
          expect(toMinorUnits(fraction ? `${whole}.${fraction}` : whole, currency)).toBe(minor);
        },
      ),
    );
  });
});
