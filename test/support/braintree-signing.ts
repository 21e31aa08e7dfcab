/**
 * Braintree webhook payloads with chosen content, signed the way the `braintree` package's own
 * webhookTesting.sampleNotification signs its samples (lib/braintree/webhook_testing_gateway.js):
 * bt_payload = base64(xml) + "\n"; bt_signature = `<public key>|<hex HMAC-SHA1(key = SHA1(private key), bt_payload)>`.
 * The package's samples cannot carry a customer, a currency or a processor response code, which the
 * receiver needs, hence these builders.
 */
import { createHash, createHmac } from 'node:crypto';

export interface BraintreeTestKeys {
  publicKey: string;
  privateKey: string;
}

export interface SignedBraintreeNotification {
  bt_signature: string;
  bt_payload: string;
}

export function signBraintreePayload(payload: string, keys: BraintreeTestKeys): string {
  const key = createHash('sha1').update(keys.privateKey, 'utf8').digest();
  return `${keys.publicKey}|${createHmac('sha1', key).update(payload, 'latin1').digest('hex')}`;
}

export function signedBraintreeNotification(xml: string, keys: BraintreeTestKeys): SignedBraintreeNotification {
  const payload = `${Buffer.from(xml, 'utf8').toString('base64')}\n`;
  return { bt_signature: signBraintreePayload(payload, keys), bt_payload: payload };
}

export interface TransactionXml {
  id: string;
  amount: string;
  currencyIsoCode?: string;
  status?: string;
  processorResponseCode?: string;
  networkResponseCode?: string;
  merchantAdviceCode?: string;
  createdAt?: string;
  customer?: { id?: string; email?: string; firstName?: string; lastName?: string };
  creditCard?: { cardType?: string; last4?: string; expirationMonth?: string; expirationYear?: string; uniqueNumberIdentifier?: string };
  billingCountry?: string;
}

export interface SubscriptionXml {
  id: string;
  planId?: string;
  price?: string;
  status?: string;
  billingPeriodStartDate?: string;
  billingPeriodEndDate?: string;
  transactions: TransactionXml[];
}

/** A notification in Braintree's XML, with the elements the receiver reads. */
export function notificationXml(kind: string, timestamp: string, subjectXml: string): string {
  return `<notification>
  <timestamp type="datetime">${timestamp}</timestamp>
  <kind>${escape(kind)}</kind>
  <subject>${subjectXml}</subject>
</notification>`;
}

export function subscriptionXml(subscription: SubscriptionXml): string {
  return `<subscription>
  <id>${escape(subscription.id)}</id>
  ${element('plan-id', subscription.planId)}
  ${element('price', subscription.price, 'decimal')}
  ${element('status', subscription.status)}
  ${element('billing-period-start-date', subscription.billingPeriodStartDate, 'date')}
  ${element('billing-period-end-date', subscription.billingPeriodEndDate, 'date')}
  <transactions type="array">${subscription.transactions.map(transactionXml).join('')}</transactions>
  <add-ons type="array"></add-ons>
  <discounts type="array"></discounts>
</subscription>`;
}

function transactionXml(transaction: TransactionXml): string {
  const customer = transaction.customer;
  const card = transaction.creditCard;
  return `<transaction>
    <id>${escape(transaction.id)}</id>
    <amount type="decimal">${escape(transaction.amount)}</amount>
    ${element('currency-iso-code', transaction.currencyIsoCode)}
    ${element('status', transaction.status)}
    ${element('processor-response-code', transaction.processorResponseCode)}
    ${element('network-response-code', transaction.networkResponseCode)}
    ${element('merchant-advice-code', transaction.merchantAdviceCode)}
    ${element('created-at', transaction.createdAt, 'datetime')}
    ${
      customer
        ? `<customer>${element('id', customer.id)}${element('email', customer.email)}${element('first-name', customer.firstName)}${element('last-name', customer.lastName)}</customer>`
        : ''
    }
    ${
      card
        ? `<credit-card>${element('card-type', card.cardType)}${element('last-4', card.last4)}${element('expiration-month', card.expirationMonth)}${element('expiration-year', card.expirationYear)}${element('unique-number-identifier', card.uniqueNumberIdentifier)}</credit-card>`
        : ''
    }
    ${transaction.billingCountry ? `<billing>${element('country-code-alpha2', transaction.billingCountry)}</billing>` : ''}
  </transaction>`;
}

function element(name: string, value: string | undefined, type?: string): string {
  if (value === undefined) return '';
  return `<${name}${type ? ` type="${type}"` : ''}>${escape(value)}</${name}>`;
}

const escape = (value: string): string =>
  value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
