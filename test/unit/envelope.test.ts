import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalKeyVault } from '../../shared/adapters/local/local-key-vault.ts';
import { open, seal } from '../../shared/envelope.ts';
import type { Envelope } from '../../shared/model/envelope.ts';

const dir = mkdtempSync(join(tmpdir(), 'recovery-envelope-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const vault = new LocalKeyVault(join(dir, 'vault.key'));
const CONTEXT = { purpose: 'processor-credentials', merchant_id: 'mer_1', environment: 'live', psp: 'stripe' };

/** The envelope with one base64 field's first byte flipped. */
function flipped(envelope: Envelope, field: 'wrapped_key' | 'iv' | 'tag' | 'ciphertext'): Envelope {
  const bytes = Buffer.from(envelope[field], 'base64');
  bytes[0] = bytes[0]! ^ 0x01;
  return { ...envelope, [field]: bytes.toString('base64') };
}

describe('local key vault', () => {
  it('makes its key on first use, readable by its owner only, and keeps using that key', async () => {
    // Prepare
    const file = join(dir, 'fresh', 'vault.key');
    // Act
    const first = new LocalKeyVault(file);
    const sealed = await seal(first, 'whsec_local', CONTEXT);
    const again = new LocalKeyVault(file);
    // Assess
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64')).toHaveLength(32);
    expect(sealed.key_id).toBe(first.keyId);
    expect(again.keyId).toBe(first.keyId);
    expect(await open(again, sealed, CONTEXT)).toBe('whsec_local');
  });

  it('refuses a key file that does not hold a 256-bit key rather than making a new one over it', () => {
    // Prepare
    const file = join(dir, 'short.key');
    writeFileSync(file, 'c2hvcnQ=\n', { mode: 0o600 });
    // Act / Assess
    expect(() => new LocalKeyVault(file).keyId).toThrow('does not hold a 256-bit key');
    expect(readFileSync(file, 'utf8')).toBe('c2hvcnQ=\n');
  });
});

describe('envelope encryption', () => {
  it('opens what it sealed, for any text and any context, under a data key of its own each time', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.dictionary(fc.string({ minLength: 1 }), fc.string()), async (secret, context) => {
        const first = await seal(vault, secret, context);
        const second = await seal(vault, secret, context);
        expect(await open(vault, first, context)).toBe(secret);
        expect(first.wrapped_key).not.toBe(second.wrapped_key);
        expect(first.iv).not.toBe(second.iv);
      }),
      { numRuns: 50 },
    );
  });

  it('refuses another context, whatever entry differs, and takes the same one in any order', async () => {
    // Prepare
    const sealed = await seal(vault, 'sk_live_context', CONTEXT);
    // Assess
    for (const [name, value] of Object.entries(CONTEXT)) {
      await expect(open(vault, sealed, { ...CONTEXT, [name]: `${value}x` }), name).rejects.toThrow();
    }
    await expect(open(vault, sealed, { ...CONTEXT, extra: 'x' })).rejects.toThrow();
    const reordered = Object.fromEntries(Object.entries(CONTEXT).reverse());
    expect(await open(vault, sealed, reordered)).toBe('sk_live_context');
  });

  it('refuses an envelope with any part altered, and one sealed under another key', async () => {
    // Prepare
    const sealed = await seal(vault, 'bt-private-key', CONTEXT);
    const otherVault = new LocalKeyVault(join(dir, 'other.key'));
    // Assess
    for (const field of ['wrapped_key', 'iv', 'tag', 'ciphertext'] as const) {
      await expect(open(vault, flipped(sealed, field), CONTEXT), field).rejects.toThrow();
    }
    await expect(open(otherVault, sealed, CONTEXT)).rejects.toThrow('did not open with the local key');
    await expect(open(vault, { ...sealed, v: 2 as 1 }, CONTEXT)).rejects.toThrow('Unknown envelope format 2');
  });
});
