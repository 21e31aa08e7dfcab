/**
 * Stripe-Signature verification, the scheme the `stripe` package's `webhooks.constructEvent` checks,
 * with its error messages (their first line), written against node:crypto so the Lambda bundle does
 * not carry the SDK (docs/decisions.md, "Processor SDKs").
 *
 * The header is `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, with more v1
 * entries while the endpoint's secret is being rolled (any one matching is enough) and entries of
 * other schemes (v0 in test mode) that are not signatures we check. Where the package is lax this is
 * stricter: a `t` that is not a whole number is refused (the package reads NaN and then skips the age
 * check), an empty `v1=` is a mismatch (the package throws a TypeError), and the window applies to
 * timestamps ahead of our clock as well as behind it (otherwise a far-future signature stays
 * replayable for as long as it is ahead).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookRejected } from '../model/processor-event.ts';

/** Stripe's own default; a signature older than this (by the service clock) is refused. */
export const STRIPE_SIGNATURE_TOLERANCE_SECONDS = 300;

const SCHEME = 'v1';

interface SignatureHeader {
  timestamp: number | null;
  signatures: string[];
}

/** Throws WebhookRejected unless `header` signs `payload` with `secret` within the tolerance of `nowSeconds`. */
export function verifyStripeSignature(payload: string, header: string | undefined, secret: string, nowSeconds: number): void {
  if (header === undefined || header.trim() === '') throw new WebhookRejected('Missing Stripe-Signature header.');
  if (payload === '') throw failed('No webhook payload was provided.');
  const { timestamp, signatures } = parseHeader(header);
  if (timestamp === null) throw failed('Unable to extract timestamp and signatures from header');
  if (signatures.length === 0) throw failed('No signatures found with expected scheme');
  if (/^\s*$/.test(secret)) throw failed('No webhook secret value was provided. It should start with `whsec_`');

  const expected = Buffer.from(createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex'), 'utf8');
  // Every candidate is compared, in constant time each, so the time taken says nothing about which matched.
  const matched = signatures.map((signature) => sameBytes(expected, Buffer.from(signature, 'utf8'))).includes(true);
  if (!matched) throw failed('No signatures found matching the expected signature for payload. Are you passing the raw request body you received from Stripe?');

  if (nowSeconds - timestamp > STRIPE_SIGNATURE_TOLERANCE_SECONDS) throw failed('Timestamp outside the tolerance zone');
  if (timestamp - nowSeconds > STRIPE_SIGNATURE_TOLERANCE_SECONDS) {
    throw new WebhookRejected(`Stripe-Signature timestamp is more than ${STRIPE_SIGNATURE_TOLERANCE_SECONDS} seconds in the future.`);
  }
}

/** Read as the package reads it: comma-separated `key=value` items, the last `t` winning. */
function parseHeader(header: string): SignatureHeader {
  const parsed: SignatureHeader = { timestamp: null, signatures: [] };
  for (const item of header.split(',')) {
    const separator = item.indexOf('=');
    if (separator === -1) continue;
    const key = item.slice(0, separator);
    const value = item.slice(separator + 1);
    if (key === 't') parsed.timestamp = /^\d{1,12}$/.test(value) ? Number(value) : null;
    if (key === SCHEME) parsed.signatures.push(value);
  }
  return parsed;
}

function sameBytes(expected: Buffer, candidate: Buffer): boolean {
  return candidate.length === expected.length && timingSafeEqual(candidate, expected);
}

const failed = (reason: string): WebhookRejected => new WebhookRejected(`Stripe signature verification failed: ${reason}`);
