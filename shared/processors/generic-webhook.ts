/**
 * The service's own webhook format, for processors without a native receiver (docs/webhooks-inbound.md).
 *
 * Signature: header `X-Recovery-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
 * Several v1= entries may be sent (any may match), so a sender can sign with the old and the new secret
 * while a rotation is under way. The timestamp must be within 300 s of the service clock, either side.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import * as z from '../zod.ts';
import { reportedNetworkAnswer } from '../model/card-ledger.ts';
import { WebhookRejected, type ProcessorEvent } from '../model/processor-event.ts';

export const GENERIC_SIGNATURE_HEADER = 'X-Recovery-Signature';
export const GENERIC_SIGNATURE_TOLERANCE_SECONDS = 300;

/** The X-Recovery-Signature value for a body, as a sender computes it. */
export function signGenericPayload(secret: string, body: string, timestampSeconds: number): string {
  return `t=${timestampSeconds},v1=${hmacHex(secret, timestampSeconds, body)}`;
}

/**
 * Throws WebhookRejected unless one v1 signature in the header matches the body and the secret, and the
 * signed timestamp is within the tolerance of `nowSeconds`.
 */
export function verifyGenericSignature(rawBody: string, signatureHeader: string | undefined, secret: string, nowSeconds: number): void {
  if (signatureHeader === undefined || signatureHeader.trim() === '') {
    throw new WebhookRejected(`Missing ${GENERIC_SIGNATURE_HEADER} header.`);
  }
  const { signedTimestamp, signatures } = parseHeader(signatureHeader);
  // The signed content uses t exactly as sent; only the window check reads it as a number.
  const expected = Buffer.from(hmacHex(secret, signedTimestamp, rawBody), 'hex');
  const timestamp = Number(signedTimestamp);
  // Every candidate is compared in constant time; which one matched is not secret.
  const matched = signatures.some((candidate) => timingSafeEqual(candidate, expected));
  if (!matched) throw new WebhookRejected(`No ${GENERIC_SIGNATURE_HEADER} v1 signature matches the body.`);
  if (Math.abs(nowSeconds - timestamp) > GENERIC_SIGNATURE_TOLERANCE_SECONDS) {
    throw new WebhookRejected(
      `${GENERIC_SIGNATURE_HEADER} timestamp is more than ${GENERIC_SIGNATURE_TOLERANCE_SECONDS} seconds away from the current time.`,
    );
  }
}

export function parseGenericWebhook(rawBody: string, signatureHeader: string | undefined, secret: string, nowSeconds: number): ProcessorEvent {
  verifyGenericSignature(rawBody, signatureHeader, secret, nowSeconds);
  let json: unknown;
  try {
    json = JSON.parse(rawBody);
  } catch {
    throw new WebhookRejected('Webhook body is not valid JSON.');
  }
  const envelope = parsePart(envelopeSchema, json);
  const base = { eventId: envelope.id, occurredAt: new Date(envelope.created * 1000).toISOString() };

  switch (envelope.type) {
    case 'payment.failed': {
      const event = parsePart(paymentFailedSchema, json);
      return {
        ...base,
        kind: 'payment_failed',
        customer: event.customer,
        subscription: event.subscription ?? null,
        payment: {
          pspPaymentId: event.payment.id,
          references: [event.payment.id],
          amount: event.payment.amount,
          currency: event.payment.currency,
          declineCode: event.payment.decline_code ?? null,
          ...reportedNetworkAnswer(event.payment.network_decline_code, event.payment.network_advice_code),
        },
        paymentMethod: event.payment_method ?? null,
      };
    }
    case 'payment.succeeded': {
      const event = parsePart(paymentSucceededSchema, json);
      return {
        ...base,
        kind: 'payment_succeeded',
        customer: event.customer,
        subscription: event.subscription ?? null,
        // The sender names the failed payment it settles (docs/webhooks-inbound.md).
        references: [event.payment.id],
        amount: event.payment.amount ?? null,
        currency: event.payment.currency ?? null,
      };
    }
    case 'payment_method.updated': {
      const event = parsePart(paymentMethodUpdatedSchema, json);
      return { ...base, kind: 'payment_method_updated', customer: event.customer, paymentMethod: event.payment_method };
    }
    case 'subscription.canceled': {
      const event = parsePart(subscriptionCanceledSchema, json);
      return { ...base, kind: 'subscription_canceled', customer: event.customer, subscription: event.subscription };
    }
    default:
      return { ...base, kind: 'ignored', type: envelope.type };
  }
}

// ---------------------------------------------------------------------------------------------------
// Signature header

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

function parseHeader(header: string): { signedTimestamp: string; signatures: Buffer[] } {
  let timestamp: string | null = null;
  const signatures: Buffer[] = [];
  for (const item of header.split(',')) {
    const separator = item.indexOf('=');
    const key = item.slice(0, Math.max(separator, 0)).trim();
    const value = item.slice(separator + 1).trim();
    if (key === 't') {
      if (timestamp !== null) throw new WebhookRejected(`${GENERIC_SIGNATURE_HEADER} has more than one t=.`);
      if (!/^\d{1,12}$/.test(value)) throw new WebhookRejected(`${GENERIC_SIGNATURE_HEADER} t= must be unix seconds.`);
      timestamp = value;
    } else if (key === 'v1' && HEX_SHA256.test(value)) {
      signatures.push(Buffer.from(value, 'hex'));
    }
    // Other schemes are ignored, so a sender can add a future scheme beside v1.
  }
  if (timestamp === null) throw new WebhookRejected(`${GENERIC_SIGNATURE_HEADER} has no t= timestamp.`);
  if (signatures.length === 0) throw new WebhookRejected(`${GENERIC_SIGNATURE_HEADER} has no v1= signature (64 hex digits).`);
  return { signedTimestamp: timestamp, signatures };
}

const hmacHex = (secret: string, timestamp: number | string, body: string): string =>
  createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');

// ---------------------------------------------------------------------------------------------------
// Payload. Unknown fields are ignored, so a sender may add its own.

const unixSeconds = z.int().nonnegative().max(253_402_300_799, { error: 'must be unix seconds' });
const optionalText = (max: number) =>
  z
    .string()
    .max(max)
    .nullish()
    .transform((value) => (value == null || value.trim() === '' ? null : value.trim()));
const currency = z
  .string()
  .regex(/^[A-Za-z]{3}$/, { error: 'must be a three-letter ISO 4217 code' })
  .transform((code) => code.toLowerCase());
const amount = z.int({ error: 'must be an integer in the smallest currency unit' }).nonnegative({ error: 'must not be negative' });

/** A card network's response or Mastercard advice code: two or three letters or digits (`05`, `R1`, `03`). */
const networkCode = z.string().regex(/^[A-Za-z0-9]{1,3}$/, { error: 'must be the card network\'s code: 1-3 letters or digits, such as 05, R1 or 03' });

const timezone = z
  .string()
  .refine(isTimeZone, { error: 'must be an IANA time zone such as Europe/Paris' })
  .nullish()
  .transform((value) => value ?? null);

const customerSchema = z
  .looseObject({
    id: z.string().min(1).max(255),
    email: optionalText(320).refine((value) => value === null || /^[^\s@]+@[^\s@]+$/.test(value), {
      error: 'must be an email address',
    }),
    name: optionalText(255),
    timezone,
    phone: optionalText(16).refine((value) => value === null || /^\+[1-9]\d{6,14}$/.test(value), {
      error: 'must be an E.164 phone number such as +4915112345678',
    }),
  })
  .transform((customer) => ({
    pspCustomerId: customer.id,
    email: customer.email,
    name: customer.name,
    timezone: customer.timezone,
    country: null,
    phone: customer.phone,
  }));

const periodEnd = z
  .union([unixSeconds.transform((seconds) => new Date(seconds * 1000)), z.iso.datetime({ offset: true }).transform((iso) => new Date(iso))], {
    error: 'must be an ISO 8601 date-time or unix seconds',
  })
  .nullish()
  .transform((date) => date?.toISOString() ?? null);

const subscriptionSchema = z
  .looseObject({
    id: z.string().min(1).max(255),
    plan: optionalText(255),
    amount: amount.nullish(),
    currency: currency.nullish(),
    status: optionalText(64),
    current_period_end: periodEnd,
  })
  .transform((subscription) => ({
    pspSubscriptionId: subscription.id,
    plan: subscription.plan,
    amount: subscription.amount ?? null,
    currency: subscription.currency ?? null,
    status: subscription.status,
    currentPeriodEnd: subscription.current_period_end,
  }));

const paymentMethodSchema = z
  .looseObject({
    type: z.string().min(1).max(64),
    brand: optionalText(64),
    last_four: z.string().regex(/^\d{4}$/, { error: 'must be 4 digits' }).nullish(),
    exp_month: z.int().min(1).max(12).nullish(),
    exp_year: z.int().min(1900).max(9999).nullish(),
    fingerprint: optionalText(255),
  })
  .transform((method) => ({
    type: method.type,
    brand: method.brand,
    lastFour: method.last_four ?? null,
    expMonth: method.exp_month ?? null,
    expYear: method.exp_year ?? null,
    ...(method.fingerprint === null ? {} : { fingerprint: method.fingerprint }),
  }));

const envelopeSchema = z.looseObject({
  id: z.string().min(1).max(255),
  type: z.string().min(1).max(128),
  created: unixSeconds,
});

const paymentFailedSchema = z.looseObject({
  customer: customerSchema,
  subscription: subscriptionSchema.nullish(),
  payment: z.looseObject({
    id: z.string().min(1).max(255),
    amount,
    currency,
    decline_code: optionalText(128),
    network_decline_code: networkCode.nullish(),
    network_advice_code: networkCode.nullish(),
  }),
  payment_method: paymentMethodSchema.nullish(),
});

const paymentSucceededSchema = z.looseObject({
  customer: customerSchema,
  subscription: subscriptionSchema.nullish(),
  payment: z.looseObject({ id: z.string().min(1).max(255), amount: amount.nullish(), currency: currency.nullish() }),
});

const paymentMethodUpdatedSchema = z.looseObject({ customer: customerSchema, payment_method: paymentMethodSchema });

const subscriptionCanceledSchema = z.looseObject({ customer: customerSchema, subscription: subscriptionSchema });

/**
 * What a sender may post, for the API description: the envelope and the payload of one of the types
 * read above, built from the same schemas. Any other type is acknowledged and ignored.
 */
export const genericEventPayload = z.union(
  Object.entries({
    'payment.failed': paymentFailedSchema,
    'payment.succeeded': paymentSucceededSchema,
    'payment_method.updated': paymentMethodUpdatedSchema,
    'subscription.canceled': subscriptionCanceledSchema,
  }).map(([type, payload]) => z.intersection(envelopeSchema.extend({ type: z.literal(type) }), payload)),
);

function isTimeZone(value: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

function parsePart<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue?.path.map(String).join('.') ?? '';
  throw new WebhookRejected(`Malformed webhook payload: ${path ? `${path}: ` : ''}${issue?.message ?? 'invalid'}`);
}
