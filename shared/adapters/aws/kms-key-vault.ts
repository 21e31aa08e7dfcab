import { DecryptCommand, GenerateDataKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import type { DataKey, EncryptionContext, KeyVault } from '../../ports/key-vault.ts';

/**
 * Data keys from a KMS customer-managed key. Decrypt names the key too: a wrapped key made under any
 * other key (one an attacker who could write the table controls, say) is refused rather than opened.
 */
export class KmsKeyVault implements KeyVault {
  constructor(
    private readonly client: KMSClient,
    /** The key's ARN (CREDENTIALS_KEY_ID). */
    private readonly keyId: string,
  ) {}

  async generateDataKey(context: EncryptionContext): Promise<DataKey> {
    const { Plaintext, CiphertextBlob, KeyId } = await this.client.send(
      new GenerateDataKeyCommand({ KeyId: this.keyId, KeySpec: 'AES_256', EncryptionContext: { ...context } }),
    );
    if (!Plaintext || !CiphertextBlob || !KeyId) throw new Error('KMS GenerateDataKey answered without a data key');
    return { plaintext: Plaintext, wrapped: CiphertextBlob, keyId: KeyId };
  }

  async decryptDataKey(wrapped: Uint8Array, context: EncryptionContext): Promise<Uint8Array> {
    const { Plaintext } = await this.client.send(new DecryptCommand({ KeyId: this.keyId, CiphertextBlob: wrapped, EncryptionContext: { ...context } }));
    if (!Plaintext) throw new Error('KMS Decrypt answered without a plaintext');
    return Plaintext;
  }
}
