import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Envelope } from './model/envelope.ts';
import type { EncryptionContext, KeyVault } from './ports/key-vault.ts';

export interface GcmSealed {
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
}

export const IV_BYTES = 12;
export const TAG_BYTES = 16;

/** The context as bytes, the same whatever order its entries were written in. */
function canonicalContext(context: EncryptionContext): Buffer {
  const entries = Object.entries(context).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Buffer.from(JSON.stringify(entries), 'utf8');
}

/** AES-256-GCM under `key` with a fresh IV, the context as additional data. */
export function gcmEncrypt(key: Uint8Array, plaintext: Uint8Array, context: EncryptionContext): GcmSealed {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(canonicalContext(context));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv, tag: cipher.getAuthTag(), ciphertext };
}

/** Throws when the ciphertext, IV or tag was altered, or the key or context is not the one it was encrypted with. */
export function gcmDecrypt(key: Uint8Array, sealed: GcmSealed, context: EncryptionContext): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(canonicalContext(context));
  decipher.setAuthTag(sealed.tag);
  return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]);
}

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

export async function seal(vault: KeyVault, plaintext: string, context: EncryptionContext): Promise<Envelope> {
  const dataKey = await vault.generateDataKey(context);
  try {
    const { iv, tag, ciphertext } = gcmEncrypt(dataKey.plaintext, Buffer.from(plaintext, 'utf8'), context);
    return { v: 1, key_id: dataKey.keyId, wrapped_key: base64(dataKey.wrapped), iv: base64(iv), tag: base64(tag), ciphertext: base64(ciphertext) };
  } finally {
    dataKey.plaintext.fill(0);
  }
}

/** The sealed text; throws when the envelope was altered or the context is not the one it was sealed with. */
export async function open(vault: KeyVault, envelope: Envelope, context: EncryptionContext): Promise<string> {
  if (envelope.v !== 1) throw new Error(`Unknown envelope format ${String(envelope.v)}`);
  const key = await vault.decryptDataKey(Buffer.from(envelope.wrapped_key, 'base64'), context);
  try {
    const sealed = { iv: Buffer.from(envelope.iv, 'base64'), tag: Buffer.from(envelope.tag, 'base64'), ciphertext: Buffer.from(envelope.ciphertext, 'base64') };
    return gcmDecrypt(key, sealed, context).toString('utf8');
  } finally {
    key.fill(0);
  }
}
