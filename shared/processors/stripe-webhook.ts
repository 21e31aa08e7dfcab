/**
 * Stripe webhooks: the Stripe-Signature header verified (stripe-signature.ts), then the native event
 * mapped to a ProcessorEvent. Pure: the caller passes the service clock's time, so the 300 s window
 * follows the adjustable clock like everything else.
 *
 * Payload shapes differ by the API version of the merchant's webhook endpoint: up to 2025-03-31 the
 * Charge and PaymentIntent carry `invoice` and the Invoice carries `subscription`, `payment_intent` and
 * `charge`; later versions dropped those links and added `invoice.parent.subscription_details` and the
 * (not-by-default) `invoice.payments` list. Both are read, and every field is optional unless the
 * mapping cannot work without it.
 */
import * as z from '../zod.ts';
import { reportedNetworkAnswer, type NetworkAnswer } from '../model/card-ledger.ts';
import {
  WebhookRejected,
  type CustomerSnapshot,
  type PaymentMethodSnapshot,
  type ProcessorEvent,
  type SubscriptionSnapshot,
} from '../model/processor-event.ts';
import { verifyStripeSignature } from './stripe-signature.ts';

export const STRIPE_SIGNATURE_HEADER = 'Stripe-Signature';

export function parseStripeWebhook(
  rawBody: string,
  signatureHeader: string | undefined,
  webhookSecret: string,
  nowSeconds: number,
): ProcessorEvent {
  verifyStripeSignature(rawBody, signatureHeader, webhookSecret, nowSeconds);
  const event = parsePart(stripeEventEnvelope, parseJson(rawBody), 'Stripe event');
  const base = { eventId: event.id, occurredAt: unixToIso(event.created) };
  const object = event.data.object;
  const ignored: ProcessorEvent = { ...base, kind: 'ignored', type: event.type };

  switch (event.type) {
    case 'payment_intent.payment_failed': {
      const failed = fromFailedPaymentIntent(parsePart(paymentIntentSchema, object, `${event.type} data.object`));
      return failed ? { ...base, ...failed } : ignored;
    }
    case 'charge.failed': {
      const failed = fromFailedCharge(parsePart(chargeSchema, object, `${event.type} data.object`));
      return failed ? { ...base, ...failed } : ignored;
    }
    case 'invoice.payment_failed': {
      const failed = fromFailedInvoice(parsePart(invoiceSchema, object, `${event.type} data.object`));
      return failed ? { ...base, ...failed } : ignored;
    }
    case 'invoice.paid': {
      const paid = fromPaidInvoice(parsePart(invoiceSchema, object, `${event.type} data.object`));
      return paid ? { ...base, ...paid } : ignored;
    }
    case 'payment_intent.succeeded': {
      const paid = fromSucceededPaymentIntent(parsePart(paymentIntentSchema, object, `${event.type} data.object`));
      return paid ? { ...base, ...paid } : ignored;
    }
    case 'customer.subscription.deleted':
    case 'customer.subscription.created':
    case 'customer.subscription.updated': {
      const subscription = parsePart(subscriptionSchema, object, `${event.type} data.object`);
      const customer = customerSnapshot(subscription.customer, {});
      if (!customer) return ignored;
      const kind = event.type === 'customer.subscription.deleted' ? 'subscription_canceled' : 'subscription_updated';
      return { ...base, kind, customer, subscription: fromSubscription(subscription) };
    }
    case 'payment_method.attached':
    case 'payment_method.updated': {
      const method = parsePart(paymentMethodSchema, object, `${event.type} data.object`);
      // A payment method that belongs to no customer (detached, or never attached) updates nobody.
      const customer = customerSnapshot(method.customer, billingFallback(method.billing_details));
      if (!customer) return ignored;
      return { ...base, kind: 'payment_method_updated', customer, paymentMethod: fromPaymentMethod(method) };
    }
    case 'customer.updated': {
      const customer = parsePart(customerSchema, object, `${event.type} data.object`);
      const previous = parsePart(previousCustomerSchema, event.data.previous_attributes ?? {}, `${event.type} data.previous_attributes`);
      const defaultChanged = previous.invoice_settings != null && Object.hasOwn(previous.invoice_settings, 'default_payment_method');
      const newDefault = customer.invoice_settings?.default_payment_method;
      // Any other customer change, or a default that was removed, is not a card update.
      if (!defaultChanged || newDefault == null) return ignored;
      return {
        ...base,
        kind: 'payment_method_updated',
        customer: snapshotOf(customer, {}),
        paymentMethod: typeof newDefault === 'string' ? unknownCard() : fromPaymentMethod(newDefault),
      };
    }
    case 'checkout.session.completed': {
      const session = parsePart(checkoutSessionSchema, object, `${event.type} data.object`);
      const setup = session.mode === 'setup' ? cardSetupOf(session.id, session.metadata) : null;
      return setup ? { ...base, ...setup } : ignored;
    }
    case 'setup_intent.succeeded': {
      const intent = parsePart(setupIntentSchema, object, `${event.type} data.object`);
      const setup = cardSetupOf(intent.id, intent.metadata);
      return setup ? { ...base, ...setup } : ignored;
    }
    default:
      return ignored;
  }
}

type CardSetupFields = Omit<Extract<ProcessorEvent, { kind: 'card_setup_completed' }>, 'eventId' | 'occurredAt'>;

/** Only sessions our card-update page started carry this metadata; any other setup is the merchant's own. */
function cardSetupOf(proof: string, metadata: unknown): CardSetupFields | null {
  const ours = pageMetadata.safeParse(metadata);
  if (!ours.success) return null;
  const { merchant_id: merchantId, environment, customer_id: customerId, link_id: linkId } = ours.data;
  return { kind: 'card_setup_completed', proof, merchantId, environment, customerId, linkId };
}

function parseJson(rawBody: string): unknown {
  try {
    return JSON.parse(rawBody);
  } catch {
    // The signature matched, so only the body itself can be at fault.
    throw new WebhookRejected('Stripe webhook body is not valid JSON.');
  }
}

// ---------------------------------------------------------------------------------------------------
// Payload schemas: loose objects, since Stripe adds fields in every API version.

const unixSeconds = z.int().nonnegative().max(253_402_300_799);
const text = z.string().nullish();
const minorUnits = z.int().nonnegative();
const currencyCode = z
  .string()
  .regex(/^[A-Za-z]{3}$/, { error: 'must be a three-letter ISO 4217 code' })
  .transform((code) => code.toLowerCase());
/** An expandable field: the id, or the expanded object with its id. */
const reference = z.union([z.string().min(1), z.looseObject({ id: z.string().min(1) })]).nullish();
type Reference = z.infer<typeof reference>;

const address = z.looseObject({ country: text }).nullish();
const billingDetails = z.looseObject({ email: text, name: text, address }).nullish();
const cardDetails = z
  .looseObject({ brand: text, last4: text, exp_month: z.int().nullish(), exp_year: z.int().nullish(), fingerprint: text })
  .nullish();
const customerId = z.union([z.string().min(1), z.looseObject({ id: z.string().min(1), email: text, name: text, phone: text, address })]);
const customerReference = customerId.nullish();
type CustomerReference = z.infer<typeof customerReference>;

const paymentMethodSchema = z.looseObject({
  id: z.string().min(1),
  type: z.string().min(1),
  card: cardDetails,
  billing_details: billingDetails,
  customer: customerReference,
});
type PaymentMethodObject = z.infer<typeof paymentMethodSchema>;

/** The event as Stripe posts it; `data.object` is read per event type below. */
export const stripeEventEnvelope = z.looseObject({
  id: z.string().min(1),
  type: z.string().min(1),
  created: unixSeconds,
  data: z.looseObject({ object: z.looseObject({}), previous_attributes: z.looseObject({}).nullish() }),
});

/** What the card-update page puts on its Checkout Session and the session's SetupIntent. */
const pageMetadata = z.looseObject({ merchant_id: z.string().min(1), environment: z.string().min(1), customer_id: z.string().min(1), link_id: z.string().min(1) });

const checkoutSessionSchema = z.looseObject({ id: z.string().regex(/^cs_/), mode: text, metadata: z.unknown() });
const setupIntentSchema = z.looseObject({ id: z.string().regex(/^seti_/), metadata: z.unknown() });

const chargeSchema = z.looseObject({
  id: z.string().min(1),
  amount: minorUnits,
  currency: currencyCode,
  customer: customerReference,
  payment_intent: reference,
  /** Up to API version 2025-03-31 only. */
  invoice: reference,
  failure_code: text,
  outcome: z.looseObject({ type: text, reason: text, network_decline_code: text, network_advice_code: text }).nullish(),
  billing_details: billingDetails,
  receipt_email: text,
  payment_method_details: z.looseObject({ type: text, card: cardDetails }).nullish(),
});
type Charge = z.infer<typeof chargeSchema>;

const paymentIntentSchema = z.looseObject({
  id: z.string().min(1),
  amount: minorUnits,
  amount_received: minorUnits.nullish(),
  currency: currencyCode,
  customer: customerReference,
  latest_charge: reference,
  /** Up to API version 2025-03-31 only. */
  invoice: reference,
  receipt_email: text,
  last_payment_error: z
    .looseObject({
      code: text,
      decline_code: text,
      charge: text,
      payment_method: paymentMethodSchema.nullish(),
      network_decline_code: text,
      network_advice_code: text,
    })
    .nullish(),
});
type PaymentIntent = z.infer<typeof paymentIntentSchema>;

const invoiceLineSchema = z.looseObject({
  amount: z.int(),
  /** Up to 2025-03-31: 'subscription' or 'invoiceitem'; later versions use parent.type. */
  type: text,
  proration: z.boolean().nullish(),
  period: z.looseObject({ end: unixSeconds }).nullish(),
  price: z.looseObject({ id: z.string().min(1) }).nullish(),
  plan: z.looseObject({ id: z.string().min(1) }).nullish(),
  pricing: z.looseObject({ price_details: z.looseObject({ price: reference }).nullish() }).nullish(),
  parent: z
    .looseObject({
      type: text,
      subscription_item_details: z.looseObject({ proration: z.boolean().nullish() }).nullish(),
    })
    .nullish(),
});
type InvoiceLine = z.infer<typeof invoiceLineSchema>;

const invoiceSchema = z.looseObject({
  id: z.string().min(1),
  currency: currencyCode,
  amount_due: minorUnits,
  amount_paid: minorUnits.nullish(),
  amount_remaining: minorUnits.nullish(),
  customer: customerReference,
  customer_email: text,
  customer_name: text,
  customer_address: address,
  /** Up to API version 2025-03-31; later versions: parent.subscription_details.subscription. */
  subscription: reference,
  parent: z.looseObject({ subscription_details: z.looseObject({ subscription: reference }).nullish() }).nullish(),
  /** Up to API version 2025-03-31; later versions: payments (only when the endpoint includes it). */
  payment_intent: reference,
  charge: reference,
  payments: z
    .looseObject({
      data: z.array(
        z.looseObject({
          is_default: z.boolean().nullish(),
          payment: z.looseObject({ payment_intent: reference, charge: reference }).nullish(),
        }),
      ),
    })
    .nullish(),
  lines: z.looseObject({ data: z.array(invoiceLineSchema) }).nullish(),
  default_payment_method: z.union([z.string().min(1), paymentMethodSchema]).nullish(),
});
type Invoice = z.infer<typeof invoiceSchema>;

const subscriptionItemSchema = z.looseObject({
  price: z.looseObject({ id: z.string().min(1), unit_amount: z.int().nullish() }).nullish(),
  plan: z.looseObject({ id: z.string().min(1), amount: z.int().nullish() }).nullish(),
  quantity: z.int().nonnegative().nullish(),
  /** From API version 2025-03-31 the period lives on the items. */
  current_period_end: unixSeconds.nullish(),
});

const subscriptionSchema = z.looseObject({
  id: z.string().min(1),
  customer: customerId,
  status: z.string().min(1),
  currency: currencyCode,
  current_period_end: unixSeconds.nullish(),
  items: z.looseObject({ data: z.array(subscriptionItemSchema) }).nullish(),
});
type Subscription = z.infer<typeof subscriptionSchema>;

const customerSchema = z.looseObject({
  id: z.string().min(1),
  email: text,
  name: text,
  phone: text,
  address,
  invoice_settings: z
    .looseObject({ default_payment_method: z.union([z.string().min(1), paymentMethodSchema]).nullish() })
    .nullish(),
});

const previousCustomerSchema = z.looseObject({ invoice_settings: z.looseObject({}).nullish() });

function parsePart<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue?.path.map(String).join('.') ?? '';
  throw new WebhookRejected(`Malformed ${what}: ${path ? `${path}: ` : ''}${issue?.message ?? 'invalid'}`);
}

// ---------------------------------------------------------------------------------------------------
// Mapping

type FailedFields = Omit<Extract<ProcessorEvent, { kind: 'payment_failed' }>, 'eventId' | 'occurredAt'>;
type SucceededFields = Omit<Extract<ProcessorEvent, { kind: 'payment_succeeded' }>, 'eventId' | 'occurredAt'>;

function fromFailedPaymentIntent(intent: PaymentIntent): FailedFields | null {
  const error = intent.last_payment_error;
  const method = error?.payment_method ?? null;
  const customer = customerSnapshot(intent.customer, {
    ...billingFallback(method?.billing_details),
    email: method?.billing_details?.email ?? intent.receipt_email,
  });
  if (!customer) return null;
  return {
    kind: 'payment_failed',
    customer,
    subscription: null,
    payment: {
      pspPaymentId: intent.id,
      references: distinct([intent.id, idOf(intent.latest_charge), error?.charge, idOf(intent.invoice)]),
      amount: intent.amount,
      currency: intent.currency,
      declineCode: present(error?.decline_code) ?? present(error?.code),
      ...networkAnswer(error),
    },
    paymentMethod: method ? fromPaymentMethod(method) : null,
  };
}

function fromFailedCharge(charge: Charge): FailedFields | null {
  const customer = customerSnapshot(charge.customer, {
    ...billingFallback(charge.billing_details),
    email: charge.billing_details?.email ?? charge.receipt_email,
  });
  if (!customer) return null;
  const intentId = idOf(charge.payment_intent);
  return {
    kind: 'payment_failed',
    customer,
    subscription: null,
    payment: {
      pspPaymentId: intentId ?? charge.id,
      references: distinct([intentId, charge.id, idOf(charge.invoice)]),
      amount: charge.amount,
      currency: charge.currency,
      declineCode: chargeDeclineCode(charge),
      ...networkAnswer(charge.outcome),
    },
    paymentMethod: chargePaymentMethod(charge),
  };
}

/**
 * A Charge has no decline_code field: for issuer declines Stripe puts the decline code in
 * outcome.reason (failure_code is then the error code, e.g. card_declined). For other outcome types
 * the reason is a Radar verdict (highest_risk_level, rule...), not a decline code.
 */
function chargeDeclineCode(charge: Charge): string | null {
  const outcome = charge.outcome;
  const declineCode = outcome?.type === 'issuer_declined' ? present(outcome.reason) : null;
  return declineCode ?? present(charge.failure_code);
}

/** The card network's answer as Stripe passes it on (a charge's outcome, a payment intent's last error). */
const networkAnswer = (source: { network_decline_code?: string | null; network_advice_code?: string | null } | null | undefined): { network?: NetworkAnswer } =>
  reportedNetworkAnswer(present(source?.network_decline_code), present(source?.network_advice_code));

function chargePaymentMethod(charge: Charge): PaymentMethodSnapshot | null {
  const details = charge.payment_method_details;
  if (!details) return null;
  if (details.card) return cardSnapshot(details.card);
  const type = present(details.type);
  return type ? { type, brand: null, lastFour: null, expMonth: null, expYear: null } : null;
}

/**
 * An invoice carries no decline code (last_finalization_error is about finalizing, not paying): the
 * payment_intent/charge events for the same attempt bring it.
 */
function fromFailedInvoice(invoice: Invoice): FailedFields | null {
  const customer = customerSnapshot(invoice.customer, invoiceFallback(invoice));
  if (!customer) return null;
  const { intents, charges } = invoicePayments(invoice);
  const method = invoice.default_payment_method;
  return {
    kind: 'payment_failed',
    customer,
    subscription: invoiceSubscription(invoice),
    payment: {
      pspPaymentId: intents[0] ?? charges[0] ?? invoice.id,
      references: distinct([...intents, ...charges, invoice.id]),
      amount: invoice.amount_remaining ?? invoice.amount_due,
      currency: invoice.currency,
      declineCode: null,
    },
    paymentMethod: method != null && typeof method !== 'string' ? fromPaymentMethod(method) : null,
  };
}

function fromPaidInvoice(invoice: Invoice): SucceededFields | null {
  const customer = customerSnapshot(invoice.customer, invoiceFallback(invoice));
  if (!customer) return null;
  const { intents, charges } = invoicePayments(invoice);
  return {
    kind: 'payment_succeeded',
    customer,
    subscription: invoiceSubscription(invoice),
    references: distinct([...intents, ...charges, invoice.id]),
    amount: invoice.amount_paid ?? null,
    currency: invoice.currency,
  };
}

function fromSucceededPaymentIntent(intent: PaymentIntent): SucceededFields | null {
  const customer = customerSnapshot(intent.customer, { email: intent.receipt_email });
  if (!customer) return null;
  return {
    kind: 'payment_succeeded',
    customer,
    subscription: null,
    references: distinct([intent.id, idOf(intent.latest_charge), idOf(intent.invoice)]),
    amount: intent.amount_received ?? intent.amount,
    currency: intent.currency,
  };
}

/** Payment intents and charges named by an invoice, the default payment first. */
function invoicePayments(invoice: Invoice): { intents: string[]; charges: string[] } {
  const payments = [...(invoice.payments?.data ?? [])].sort((a, b) => Number(b.is_default ?? false) - Number(a.is_default ?? false));
  return {
    intents: distinct([idOf(invoice.payment_intent), ...payments.map((p) => idOf(p.payment?.payment_intent))]),
    charges: distinct([idOf(invoice.charge), ...payments.map((p) => idOf(p.payment?.charge))]),
  };
}

function invoiceSubscription(invoice: Invoice): SubscriptionSnapshot | null {
  const subscriptionId = idOf(invoice.parent?.subscription_details?.subscription) ?? idOf(invoice.subscription);
  if (!subscriptionId) return null;
  // Prorations are one-off adjustments, not the recurring price.
  const lines = (invoice.lines?.data ?? []).filter((line) => isSubscriptionLine(line) && !isProration(line));
  const periodEnds = lines.flatMap((line) => (line.period ? [line.period.end] : []));
  return {
    pspSubscriptionId: subscriptionId,
    plan: lines.map(linePriceId).find((id) => id !== null) ?? null,
    amount: lines.length > 0 ? lines.reduce((sum, line) => sum + line.amount, 0) : null,
    currency: invoice.currency,
    // An invoice does not say what state its subscription is in.
    status: null,
    currentPeriodEnd: periodEnds.length > 0 ? unixToIso(Math.max(...periodEnds)) : null,
  };
}

const isSubscriptionLine = (line: InvoiceLine): boolean =>
  line.parent?.type === 'subscription_item_details' || line.type === 'subscription';

const isProration = (line: InvoiceLine): boolean =>
  line.proration === true || line.parent?.subscription_item_details?.proration === true;

const linePriceId = (line: InvoiceLine): string | null =>
  idOf(line.pricing?.price_details?.price) ?? line.price?.id ?? line.plan?.id ?? null;

function fromSubscription(subscription: Subscription): SubscriptionSnapshot {
  const items = subscription.items?.data ?? [];
  const unitAmounts = items.map((item) => item.price?.unit_amount ?? item.plan?.amount ?? null);
  const priced = items.length > 0 && unitAmounts.every((amount) => amount !== null);
  const itemPeriodEnds = items.flatMap((item) => (item.current_period_end != null ? [item.current_period_end] : []));
  const periodEnd =
    subscription.current_period_end ?? (itemPeriodEnds.length > 0 ? Math.max(...itemPeriodEnds) : null);
  return {
    pspSubscriptionId: subscription.id,
    plan: items[0]?.price?.id ?? items[0]?.plan?.id ?? null,
    amount: priced ? items.reduce((sum, item, i) => sum + unitAmounts[i]! * (item.quantity ?? 1), 0) : null,
    currency: subscription.currency,
    status: subscription.status,
    currentPeriodEnd: periodEnd !== null ? unixToIso(periodEnd) : null,
  };
}

function fromPaymentMethod(method: PaymentMethodObject): PaymentMethodSnapshot {
  if (method.card) return { ...cardSnapshot(method.card), type: method.type };
  return { type: method.type, brand: null, lastFour: null, expMonth: null, expYear: null };
}

function cardSnapshot(card: NonNullable<z.infer<typeof cardDetails>>): PaymentMethodSnapshot {
  return {
    type: 'card',
    brand: present(card.brand),
    lastFour: present(card.last4),
    expMonth: card.exp_month ?? null,
    expYear: card.exp_year ?? null,
    ...(card.fingerprint ? { fingerprint: card.fingerprint } : {}),
  };
}

/**
 * customer.updated names the new default payment method by id unless the endpoint expands it; the
 * snapshot cannot carry the id, so the details stay unknown until a payment_method.* event brings them.
 */
const unknownCard = (): PaymentMethodSnapshot => ({ type: 'card', brand: null, lastFour: null, expMonth: null, expYear: null });

interface ContactFallback {
  email?: string | null | undefined;
  name?: string | null | undefined;
  country?: string | null | undefined;
}

const billingFallback = (details: z.infer<typeof billingDetails>): ContactFallback => ({
  email: details?.email,
  name: details?.name,
  country: details?.address?.country,
});

const invoiceFallback = (invoice: Invoice): ContactFallback => ({
  email: invoice.customer_email,
  name: invoice.customer_name,
  country: invoice.customer_address?.country,
});

/** Null when the object belongs to no customer. */
function customerSnapshot(ref: CustomerReference, fallback: ContactFallback): CustomerSnapshot | null {
  return ref == null ? null : snapshotOf(ref, fallback);
}

/** Stripe knows no customer timezone; the billing country is the fallback the contract allows. */
function snapshotOf(ref: NonNullable<CustomerReference>, fallback: ContactFallback): CustomerSnapshot {
  const expanded = typeof ref === 'string' ? null : ref;
  return {
    pspCustomerId: typeof ref === 'string' ? ref : ref.id,
    email: present(expanded?.email) ?? present(fallback.email),
    name: present(expanded?.name) ?? present(fallback.name),
    timezone: null,
    country: countryCode(expanded?.address?.country) ?? countryCode(fallback.country),
    phone: present(expanded?.phone),
  };
}

// ---------------------------------------------------------------------------------------------------
// Small helpers

const idOf = (ref: Reference): string | null => (ref == null ? null : typeof ref === 'string' ? ref : ref.id);

const present = (value: string | null | undefined): string | null => (value == null || value.trim() === '' ? null : value);

const countryCode = (value: string | null | undefined): string | null =>
  value != null && /^[A-Za-z]{2}$/.test(value) ? value.toUpperCase() : null;

function distinct(ids: ReadonlyArray<string | null | undefined>): string[] {
  return [...new Set(ids.filter((id): id is string => typeof id === 'string' && id !== ''))];
}

const unixToIso = (seconds: number): string => new Date(seconds * 1000).toISOString();
