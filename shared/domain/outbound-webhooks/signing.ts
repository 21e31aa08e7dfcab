import { createHmac } from 'node:crypto';

/**
 * The outbound signature, Stripe's scheme under our own header (docs/webhooks-outbound.md):
 * `Recovery-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, with one
 * `v1` per signing secret alive (two during a rotation's overlap).
 */
export const SIGNATURE_HEADER = 'Recovery-Signature';

export function signatureOf(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

export function signatureHeader(secrets: readonly string[], timestamp: number, body: string): string {
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${signatureOf(secret, timestamp, body)}`)].join(',');
}

