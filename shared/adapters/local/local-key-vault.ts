import { createHash, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { gcmDecrypt, gcmEncrypt, IV_BYTES, TAG_BYTES } from '../../envelope.ts';
import type { DataKey, EncryptionContext, KeyVault } from '../../ports/key-vault.ts';

const KEY_BYTES = 32;

interface VaultKey {
  id: string;
  bytes: Buffer;
}

/**
 * Reads the key file, or makes it: readable by its owner only (0600), written whole under a temporary
 * name and linked into place, so two processes starting at once (the server and the ops CLI) end up
 * with the same key and neither reads a half-written one.
 */
function loadOrCreate(file: string): VaultKey {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(dirname(file), { recursive: true });
    const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(draft, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    try {
      linkSync(draft, file);
    } catch (linkError) {
      if ((linkError as NodeJS.ErrnoException).code !== 'EEXIST') throw linkError;
    } finally {
      rmSync(draft, { force: true });
    }
    text = readFileSync(file, 'utf8');
  }
  const bytes = Buffer.from(text.trim(), 'base64');
  if (bytes.length !== KEY_BYTES) throw new Error(`${file} does not hold a ${KEY_BYTES * 8}-bit key`);
  return { id: `local:${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}`, bytes };
}

/**
 * The key vault of the local server and the tests: one 256-bit key in a file (`.local/vault.key`,
 * made on first use; the tests use a temporary one), wrapping each data key with AES-256-GCM bound to
 * the encryption context, so a wrong context is refused as KMS refuses it. Wrapped keys are IV, tag
 * and ciphertext, concatenated.
 */
export class LocalKeyVault implements KeyVault {
  private key: VaultKey | undefined;

  constructor(readonly file: string) {}

  /** `local:<fingerprint>`; reading it makes the key file if there is none yet (the local server does at start). */
  get keyId(): string {
    return this.vaultKey().id;
  }

  async generateDataKey(context: EncryptionContext): Promise<DataKey> {
    const key = this.vaultKey();
    const plaintext = randomBytes(KEY_BYTES);
    const { iv, tag, ciphertext } = gcmEncrypt(key.bytes, plaintext, context);
    return { plaintext, wrapped: Buffer.concat([iv, tag, ciphertext]), keyId: key.id };
  }

  async decryptDataKey(wrapped: Uint8Array, context: EncryptionContext): Promise<Uint8Array> {
    const bytes = Buffer.from(wrapped);
    const sealed = { iv: bytes.subarray(0, IV_BYTES), tag: bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES), ciphertext: bytes.subarray(IV_BYTES + TAG_BYTES) };
    try {
      return gcmDecrypt(this.vaultKey().bytes, sealed, context);
    } catch {
      throw new Error(`A data key did not open with the local key in ${this.file}: wrapped under another key or another encryption context`);
    }
  }

  private vaultKey(): VaultKey {
    this.key ??= loadOrCreate(this.file);
    return this.key;
  }
}
