import { call } from './api.ts';
import { notificationXml, signedBraintreeNotification, subscriptionXml } from './braintree-signing.ts';
import { BRAINTREE_CREDENTIALS } from './webhooks.ts';

let counter = 0;
const keys = { publicKey: BRAINTREE_CREDENTIALS.public_key, privateKey: BRAINTREE_CREDENTIALS.private_key };

function post(path: string, xml: string) {
  const { bt_signature, bt_payload } = signedBraintreeNotification(xml, keys);
  return call('POST', path, {
    rawBody: new URLSearchParams({ bt_signature, bt_payload }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

interface NotificationOptions {
  subscriptionId?: string;
  transactionId?: string;
  customer?: { id: string; email: string; firstName: string; lastName: string };
  /** The subscription's status as Braintree writes it; Past Due unless said. */
  status?: string;
  /** When Braintree says the notification happened (ISO 8601); now unless said. */
  timestamp?: string;
}

/** Posts a signed subscription_charged_unsuccessfully notification whose latest transaction has this response code. */
export function postBraintreeFailure(path: string, processorResponseCode: string, options: NotificationOptions = {}) {
  return postBraintreeNotification(path, 'subscription_charged_unsuccessfully', processorResponseCode, options);
}

/** Posts a signed notification of `kind` about a subscription whose latest transaction has this response code. */
export function postBraintreeNotification(path: string, kind: string, processorResponseCode: string, options: NotificationOptions = {}) {
  return post(path, chargeNotificationXml(kind, processorResponseCode, options));
}

/** The XML of a notification of `kind` about a subscription whose latest transaction has this response code (unsigned). */
export function chargeNotificationXml(kind: string, processorResponseCode: string, options: NotificationOptions = {}): string {
  counter += 1;
  const subscriptionId = options.subscriptionId ?? `bt_sub_${Date.now().toString(36)}_${counter}`;
  return notificationXml(
    kind,
    options.timestamp ?? new Date().toISOString(),
    subscriptionXml({
      id: subscriptionId,
      planId: 'gold',
      price: '19.99',
      status: options.status ?? 'Past Due',
      billingPeriodStartDate: '2026-12-01',
      billingPeriodEndDate: '2026-12-31',
      transactions: [
        {
          id: options.transactionId ?? `txn_${counter}`,
          amount: '19.99',
          currencyIsoCode: 'USD',
          status: 'processor_declined',
          processorResponseCode,
          customer: options.customer ?? { id: `bt_cus_${counter}`, email: `bt${counter}@example.com`, firstName: 'Ada', lastName: 'Lovelace' },
          creditCard: { cardType: 'Visa', last4: '1111', expirationMonth: '06', expirationYear: '2029' },
        },
      ],
    }),
  );
}
