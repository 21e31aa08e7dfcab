/**
 * Braintree webhook signatures, checked as the `braintree` package's webhookNotification.parse checks
 * them (with its messages), on node:crypto.
 *
 * bt_signature is one or more `<public key>|<hex HMAC-SHA1>` pairs joined by '&' (one per API key the
 * merchant has); the pair for our public key is checked, the HMAC being keyed with SHA1(private key)
 * and taken over bt_payload as posted. Braintree's payloads end in a newline, which a form decoder or
 * proxy may trim, so the payload with a '\n' appended also counts, as in the package.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookRejected } from '../model/processor-event.ts';

export interface BraintreeWebhookKeys {
  publicKey: string;
  privateKey: string;
}

/** Throws WebhookRejected unless `signature` is our public key's signature of `payload`. */
export function verifyBraintreeSignature(signature: string, payload: string, keys: BraintreeWebhookKeys): void {
  if (!signature) throw failed('signature parameter is required');
  if (!payload) throw failed('payload parameter is required');
  if (/[^A-Za-z0-9+=/\n]/.test(payload)) throw failed('payload contains illegal characters');
  const ours = signature
    .split('&')
    .filter((pair) => pair.includes('|'))
    .map((pair) => pair.split('|'))
    .find(([publicKey]) => publicKey === keys.publicKey);
  // An empty signature for our key counts as none, as in the package.
  if (!ours?.[1]) throw failed('no matching public key');
  const given = Buffer.from(ours[1], 'latin1');
  // Both candidates are always computed and compared, each in constant time.
  const matches = [payload, `${payload}\n`].map((signed) => sameBytes(Buffer.from(braintreeHmac(signed, keys.privateKey), 'latin1'), given));
  if (!matches.includes(true)) throw failed('signature does not match payload - one has been modified');
}

/** Hex HMAC-SHA1 of `data` keyed with SHA1(private key); strings as bytes, as the package hashes them ('binary'). */
function braintreeHmac(data: string, privateKey: string): string {
  const key = createHash('sha1').update(privateKey, 'latin1').digest();
  return createHmac('sha1', key).update(data, 'latin1').digest('hex');
}

const sameBytes = (expected: Buffer, candidate: Buffer): boolean => candidate.length === expected.length && timingSafeEqual(candidate, expected);

const failed = (reason: string): WebhookRejected => new WebhookRejected(`Braintree signature verification failed: ${reason}`);
