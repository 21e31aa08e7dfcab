import { randomBytes } from 'node:crypto';
import { DecryptCommand, DisabledException, GenerateDataKeyCommand, InvalidCiphertextException, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { KmsKeyVault } from '../../shared/adapters/aws/kms-key-vault.ts';
import { runtime } from '../../shared/runtime.ts';
import { OPENED_CREDENTIALS_SECONDS, openCredentials, sealCredentials } from '../../shared/domain/ingestion/processor-credentials.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import type { ProcessorConnection, ProcessorCredentials } from '../../shared/model/processor-connection.ts';
import { localRuntime } from '../../bin/local/local-runtime.ts';

const KEY_ARN = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const tenant: Tenant = { merchantId: 'mer_kms_1', environment: 'live' };
const CONTEXT = { purpose: 'processor-credentials', merchant_id: 'mer_kms_1', environment: 'live', psp: 'stripe' };
const STRIPE: ProcessorCredentials = { kind: 'stripe', webhookSecret: 'whsec_kms_adapter_0123', apiKey: 'sk_live_kms_adapter_4567' };

/** KMS as the adapter sees it: one data key, wrapped as an opaque blob, opened only with the context and key it was made under. */
function fakeKms(kms: ReturnType<typeof mockClient>) {
  const dataKey = randomBytes(32);
  const blob = randomBytes(184);
  const handedOut: Uint8Array[] = [];
  kms.on(GenerateDataKeyCommand).callsFake(() => {
    const plaintext = Uint8Array.from(dataKey);
    handedOut.push(plaintext);
    return { KeyId: KEY_ARN, Plaintext: plaintext, CiphertextBlob: Uint8Array.from(blob) };
  });
  const decrypt = (input: DecryptCommand['input']) => {
    const sameContext = JSON.stringify(input.EncryptionContext) === JSON.stringify(CONTEXT);
    if (input.KeyId !== KEY_ARN || !sameContext || !Buffer.from(input.CiphertextBlob!).equals(blob)) {
      throw new InvalidCiphertextException({ message: 'invalid ciphertext', $metadata: {} });
    }
    return { KeyId: KEY_ARN, Plaintext: Uint8Array.from(dataKey) };
  };
  kms.on(DecryptCommand).callsFake(decrypt);
  return { blob, handedOut, decrypt };
}

function connectionOf(sealed: Awaited<ReturnType<typeof sealCredentials>>, id: string, forTenant: Tenant = tenant): ProcessorConnection {
  return { id, tenant: forTenant, psp: 'stripe', apiAccess: true, credentials: { sealed }, createdAt: '2026-12-01T00:00:00.000Z', updatedAt: '2026-12-01T00:00:00.000Z' };
}

describe('KMS key vault', () => {
  const kms = mockClient(KMSClient);
  const vault = new KmsKeyVault(new KMSClient({ region: 'eu-west-1' }), KEY_ARN);
  beforeEach(() => kms.reset());

  it("asks KMS for one AES-256 data key per sealing, under the configured key and the tenant's and processor's context, and keeps only the wrapped key", async () => {
    // Prepare
    const { blob, handedOut } = fakeKms(kms);
    // Act
    const sealed = await sealCredentials(vault, tenant, 'stripe', STRIPE);
    // Assess
    const calls = kms.commandCalls(GenerateDataKeyCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toEqual({ KeyId: KEY_ARN, KeySpec: 'AES_256', EncryptionContext: CONTEXT });
    expect(kms.commandCalls(DecryptCommand)).toHaveLength(0);
    expect(sealed).toMatchObject({ v: 1, key_id: KEY_ARN, wrapped_key: blob.toString('base64') });
    expect(JSON.stringify(sealed)).not.toContain(STRIPE.webhookSecret);
    expect(JSON.stringify(sealed)).not.toContain('sk_live_kms_adapter');
    // The plaintext data key is wiped once used.
    expect(handedOut[0]!.every((byte) => byte === 0)).toBe(true);
  });

  it('opens with one Decrypt naming the key, the wrapped data key and the same context, then serves the credentials from memory for a short while', async () => {
    // Prepare
    const { blob } = fakeKms(kms);
    const connection = connectionOf(await sealCredentials(vault, tenant, 'stripe', STRIPE), 'con_kms_cached');
    // Act
    const first = await openCredentials(vault, connection);
    const second = await openCredentials(vault, connection);
    const decryptsWhileCached = kms.commandCalls(DecryptCommand).length;
    localRuntime().clock.advance(OPENED_CREDENTIALS_SECONDS + 1);
    const afterExpiry = await openCredentials(vault, connection);
    // Assess
    expect(first).toEqual(STRIPE);
    expect(second).toEqual(STRIPE);
    expect(afterExpiry).toEqual(STRIPE);
    expect(decryptsWhileCached).toBe(1);
    const calls = kms.commandCalls(DecryptCommand);
    expect(calls).toHaveLength(2);
    expect(calls[0]!.args[0].input).toEqual({ KeyId: KEY_ARN, CiphertextBlob: blob, EncryptionContext: CONTEXT });
  });

  it("refuses a sealed value moved to another tenant's connection: the context KMS is asked with is the connection's own", async () => {
    // Prepare
    fakeKms(kms);
    const sealed = await sealCredentials(vault, tenant, 'stripe', STRIPE);
    const elsewhere = connectionOf(sealed, 'con_kms_moved', { merchantId: 'mer_kms_other', environment: 'live' });
    // Act
    const opening = openCredentials(vault, elsewhere);
    // Assess
    await expect(opening).rejects.toThrow(InvalidCiphertextException);
    expect(kms.commandCalls(DecryptCommand)[0]!.args[0].input.EncryptionContext).toEqual({ ...CONTEXT, merchant_id: 'mer_kms_other' });
  });

  it('lets a refusal from KMS (a disabled key) through, and remembers nothing of it', async () => {
    // Prepare
    const { decrypt } = fakeKms(kms);
    const connection = connectionOf(await sealCredentials(vault, tenant, 'stripe', STRIPE), 'con_kms_denied');
    kms.on(DecryptCommand).rejectsOnce(new DisabledException({ message: 'key disabled', $metadata: {} })).callsFake(decrypt);
    // Act
    const refused = openCredentials(vault, connection);
    // Assess
    await expect(refused).rejects.toThrow(DisabledException);
    expect(await openCredentials(vault, connection)).toEqual(STRIPE);
  });
});
