import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/**
 * A response that shows a secret once (a new API key, a webhook signing secret) is remembered for
 * idempotent replay sealed with AES-256-GCM, under a key derived from the API key that made the
 * request. The table holds only that key's hash, so the same client retrying gets its secret back,
 * while a reader of the table, or a request with another API key, does not (docs/decisions.md,
 * "Idempotency").
 */
const IV_BYTES = 12;
const TAG_BYTES = 16;

function sealingKey(apiKey: string, scope: string): Buffer {
  return createHmac('sha256', apiKey).update(`idempotent-response\n${scope}`).digest();
}

/** `scope` names what the sealed text belongs to (tenant, idempotency key, request); unsealing needs the same. */
export function seal(text: string, apiKey: string, scope: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(apiKey, scope), iv);
  const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
}

/** The text, or undefined when this API key (or scope) did not seal it. */
export function unseal(sealed: string, apiKey: string, scope: string): string | undefined {
  const bytes = Buffer.from(sealed, 'base64');
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealingKey(apiKey, scope), bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
