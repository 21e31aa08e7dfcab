/**
 * Braintree webhooks: bt_signature checked (braintree-signature.ts), bt_payload decoded from base64
 * XML (braintree-xml.ts) into the objects the `braintree` package gave, then the subscription
 * notification mapped to a ProcessorEvent.
 *
 * Braintree signs only the payload (`<public key>|<hex HMAC-SHA1 keyed with SHA1(private key)>`),
 * with no timestamp in the signature. The signed XML has a <timestamp>, but Braintree redelivers the
 * same payload for hours after a failed delivery, so a freshness window would refuse genuine retries:
 * replays are absorbed by de-duplication on the derived event id instead.
 */
import * as z from '../zod.ts';
import { minorUnitDigits, parseDecimalAmount } from '../model/money.ts';
import { reportedNetworkAnswer } from '../model/card-ledger.ts';
import {
  WebhookRejected,
  type CustomerSnapshot,
  type PaymentMethodSnapshot,
  type ProcessorEvent,
  type SubscriptionSnapshot,
} from '../model/processor-event.ts';
import { subscriptionReference } from './braintree-references.ts';
import { verifyBraintreeSignature, type BraintreeWebhookKeys } from './braintree-signature.ts';
import { readBraintreeXml, type BraintreeValue } from './braintree-xml.ts';
import { XmlSyntaxError } from './xml-reader.ts';

export function parseBraintreeWebhook(btSignature: string, btPayload: string, keys: BraintreeWebhookKeys): ProcessorEvent {
  verifyBraintreeSignature(btSignature, btPayload, keys);
  const notification = parsePart(notificationSchema, decode(btPayload).notification, 'Braintree notification');
  return toProcessorEvent(notification);
}

function decode(btPayload: string): Record<string, BraintreeValue> {
  try {
    return readBraintreeXml(Buffer.from(btPayload, 'base64').toString('utf8'));
  } catch (err) {
    // The signature matched, so the XML is what Braintree sent: unreadable means unusable.
    if (err instanceof XmlSyntaxError) throw new WebhookRejected(`Braintree webhook payload could not be decoded: ${err.message}`);
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------------
// The decoded notification: camelCase objects whose leaves are strings (empty elements become ''), so
// every optional text is read through `optionalText`.

const optionalText = z
  .string()
  .nullish()
  .transform((value) => (value == null || value.trim() === '' ? null : value.trim()));

const transactionSchema = z.looseObject({
  id: z.string().min(1),
  amount: z.string().min(1),
  currencyIsoCode: optionalText,
  processorResponseCode: optionalText,
  /** The card network's own response code and Mastercard's advice code, when Braintree passes them on. */
  networkResponseCode: optionalText,
  merchantAdviceCode: optionalText,
  createdAt: optionalText,
  paymentInstrumentType: optionalText,
  customer: z.looseObject({ id: optionalText, email: optionalText, firstName: optionalText, lastName: optionalText, phone: optionalText }).nullish(),
  creditCard: z
    .looseObject({
      cardType: optionalText,
      last4: optionalText,
      expirationMonth: optionalText,
      expirationYear: optionalText,
      uniqueNumberIdentifier: optionalText,
    })
    .nullish(),
  billing: z.looseObject({ countryCodeAlpha2: optionalText }).nullish(),
});
type Transaction = z.infer<typeof transactionSchema>;

const subscriptionSchema = z.looseObject({
  id: z.string().min(1),
  planId: optionalText,
  price: optionalText,
  status: optionalText,
  billingPeriodStartDate: optionalText,
  billingPeriodEndDate: optionalText,
  transactions: z.array(transactionSchema),
});
type Subscription = z.infer<typeof subscriptionSchema>;

const notificationSchema = z.looseObject({
  kind: z.string().min(1),
  timestamp: z.string().refine((value) => !Number.isNaN(Date.parse(value)), { error: 'must be a date-time' }),
  subject: z.unknown(),
});
type Notification = z.infer<typeof notificationSchema>;

/** What a notification is about; a failed operation's subject is wrapped in an api-error-response. */
const subjectSchema = z.looseObject({
  subscription: z.unknown(),
  apiErrorResponse: z.looseObject({ subscription: z.unknown() }).nullish(),
});

function subscriptionOf(notification: Notification): unknown {
  const subject = parsePart(subjectSchema, notification.subject, `Braintree ${notification.kind} subject`);
  return subject.apiErrorResponse ? subject.apiErrorResponse.subscription : subject.subscription;
}

function parsePart<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue?.path.map(String).join('.') ?? '';
  throw new WebhookRejected(`Malformed ${what}: ${path ? `${path}: ` : ''}${issue?.message ?? 'invalid'}`);
}

// ---------------------------------------------------------------------------------------------------
// Mapping

/** Notifications about the subscription's state, not a charge: canceled, or now standing differently. */
const STATE_KINDS = new Set(['subscription_canceled', 'subscription_expired', 'subscription_went_active', 'subscription_went_past_due']);

const CONSUMED_KINDS = new Set(['subscription_charged_unsuccessfully', 'subscription_charged_successfully', ...STATE_KINDS]);

function toProcessorEvent(notification: Notification): ProcessorEvent {
  const occurredAt = new Date(notification.timestamp).toISOString();
  if (!CONSUMED_KINDS.has(notification.kind)) {
    return { eventId: eventId(notification, null, null), occurredAt, kind: 'ignored', type: notification.kind };
  }
  const subscription = parsePart(subscriptionSchema, subscriptionOf(notification), `Braintree ${notification.kind} subscription`);
  const transaction = latestTransaction(subscription);
  const base = { eventId: eventId(notification, subscription, transaction), occurredAt };

  if (STATE_KINDS.has(notification.kind)) {
    // Only a transaction names the customer. A subscription never charged has none, and cannot have
    // a failed payment here either. Expired arrives as an update whose status has ended it.
    const customer = transaction ? customerSnapshot(transaction) : null;
    if (!customer) return { ...base, kind: 'ignored', type: notification.kind };
    const kind = notification.kind === 'subscription_canceled' ? 'subscription_canceled' : 'subscription_updated';
    return { ...base, kind, customer, subscription: subscriptionSnapshot(subscription, transaction) };
  }

  if (!transaction) throw new WebhookRejected(`Malformed Braintree ${notification.kind}: the subscription has no transaction.`);
  const customer = customerSnapshot(transaction);
  if (!customer) throw new WebhookRejected(`Malformed Braintree ${notification.kind}: the transaction names no customer id.`);
  const currency = transaction.currencyIsoCode;
  if (!currency || !/^[A-Za-z]{3}$/.test(currency)) {
    throw new WebhookRejected(`Malformed Braintree ${notification.kind}: the transaction has no currencyIsoCode.`);
  }
  const amount = toMinorUnits(transaction.amount, currency);
  const periodStart = subscription.billingPeriodStartDate;
  const references = periodStart ? [transaction.id, subscriptionReference(subscription.id, periodStart)] : [transaction.id];

  if (notification.kind === 'subscription_charged_unsuccessfully') {
    return {
      ...base,
      kind: 'payment_failed',
      customer,
      subscription: subscriptionSnapshot(subscription, transaction),
      payment: {
        pspPaymentId: transaction.id,
        references,
        amount,
        currency: currency.toLowerCase(),
        declineCode: transaction.processorResponseCode,
        ...reportedNetworkAnswer(transaction.networkResponseCode, transaction.merchantAdviceCode),
      },
      paymentMethod: paymentMethodSnapshot(transaction),
    };
  }
  return {
    ...base,
    kind: 'payment_succeeded',
    customer,
    subscription: subscriptionSnapshot(subscription, transaction),
    references,
    amount,
    currency: currency.toLowerCase(),
  };
}

/** Braintree notifications have no id; this is stable across redeliveries of the same notification. */
function eventId(notification: Notification, subscription: Subscription | null, transaction: Transaction | null): string {
  return ['bt', notification.kind, notification.timestamp, subscription?.id ?? '-', transaction?.id ?? '-'].join(':');
}

/** The newest transaction by createdAt; Braintree lists them newest first, which is the fallback. */
function latestTransaction(subscription: Subscription): Transaction | null {
  let latest: Transaction | null = null;
  let latestAt = Number.NEGATIVE_INFINITY;
  for (const transaction of subscription.transactions) {
    const at = transaction.createdAt ? Date.parse(transaction.createdAt) : Number.NaN;
    if (latest === null || (!Number.isNaN(at) && at > latestAt)) {
      latest = transaction;
      if (!Number.isNaN(at)) latestAt = at;
    }
  }
  return latest;
}

function customerSnapshot(transaction: Transaction): CustomerSnapshot | null {
  const details = transaction.customer;
  if (!details?.id) return null;
  const name = [details.firstName, details.lastName].filter((part) => part !== null).join(' ');
  const country = transaction.billing?.countryCodeAlpha2 ?? null;
  return {
    pspCustomerId: details.id,
    email: details.email,
    name: name === '' ? null : name,
    timezone: null,
    country: country !== null && /^[A-Za-z]{2}$/.test(country) ? country.toUpperCase() : null,
    // Braintree keeps phones as typed; only an E.164 number is usable for sms.
    phone: details.phone !== null && details.phone !== undefined && /^\+[1-9]\d{6,14}$/.test(details.phone) ? details.phone : null,
  };
}

function subscriptionSnapshot(subscription: Subscription, transaction: Transaction | null): SubscriptionSnapshot {
  const currency = transaction?.currencyIsoCode && /^[A-Za-z]{3}$/.test(transaction.currencyIsoCode) ? transaction.currencyIsoCode : null;
  return {
    pspSubscriptionId: subscription.id,
    plan: subscription.planId,
    // The price is a decimal in the merchant account's currency, which only the transaction names.
    amount: subscription.price !== null && currency !== null ? toMinorUnits(subscription.price, currency) : null,
    currency: currency?.toLowerCase() ?? null,
    // Braintree's "Past Due" as Stripe writes statuses (past_due), so the API has one vocabulary.
    status: subscription.status === null ? null : subscription.status.toLowerCase().replaceAll(' ', '_'),
    currentPeriodEnd: periodEnd(subscription.billingPeriodEndDate),
  };
}

/**
 * billingPeriodEndDate is the last day of the period (inclusive, a date without time); the period
 * ends when that day does, i.e. at the start of the next day. UTC, as the date carries no zone.
 */
function periodEnd(lastDay: string | null): string | null {
  if (lastDay === null || !/^\d{4}-\d{2}-\d{2}$/.test(lastDay)) return null;
  const start = Date.parse(`${lastDay}T00:00:00Z`);
  return Number.isNaN(start) ? null : new Date(start + 86_400_000).toISOString();
}

function paymentMethodSnapshot(transaction: Transaction): PaymentMethodSnapshot | null {
  const card = transaction.creditCard;
  if (card && (card.last4 !== null || card.cardType !== null)) {
    return {
      type: 'card',
      brand: card.cardType,
      lastFour: card.last4,
      expMonth: integerOrNull(card.expirationMonth),
      expYear: integerOrNull(card.expirationYear),
      ...(card.uniqueNumberIdentifier === null ? {} : { fingerprint: card.uniqueNumberIdentifier }),
    };
  }
  const type = transaction.paymentInstrumentType;
  return type ? { type, brand: null, lastFour: null, expMonth: null, expYear: null } : null;
}

const integerOrNull = (value: string | null): number | null => (value !== null && /^\d{1,4}$/.test(value) ? Number(value) : null);

// ---------------------------------------------------------------------------------------------------
// Amounts

/**
 * A Braintree decimal amount ('12.50') in the currency's smallest unit (1250), by string arithmetic so
 * no binary rounding can creep in. Digits beyond the currency's minor unit must be zeros.
 */
export function toMinorUnits(amount: string, currency: string): number {
  if (!/^\d+(\.\d+)?$/.test(amount.trim())) throw new WebhookRejected(`Malformed Braintree amount '${amount}': expected a decimal such as 12.50.`);
  const minor = parseDecimalAmount(amount, currency);
  if (minor === undefined) {
    throw new WebhookRejected(`Malformed Braintree amount '${amount}': ${currency.toUpperCase()} has ${minorUnitDigits(currency)} decimal places.`);
  }
  return minor;
}
