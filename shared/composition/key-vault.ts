import { serviceClientSettings } from '../aws-clients.ts';
import { KMSClient } from '@aws-sdk/client-kms';
import { KmsKeyVault } from '../adapters/aws/kms-key-vault.ts';
import { builtOnFirstUse } from '../adapters/built-on-first-use.ts';
import { requireEnv } from '../config.ts';
import type { KeyVault } from '../ports/key-vault.ts';
import { adapterFor } from './adapters.ts';

/**
 * The KMS key that seals processor credentials, configured at cold start of the functions that import
 * this module (CREDENTIALS_KEY_ID, set by CDK only for the functions the route table lets seal or open
 * credentials); its client is built on the first call, which a warm instance's cache mostly spares.
 */
function kmsKeyVault(): KeyVault {
  const keyId = requireEnv('CREDENTIALS_KEY_ID');
  return builtOnFirstUse(() => new KmsKeyVault(new KMSClient(serviceClientSettings()), keyId));
}

/** The key vault for this runtime. */
export const keyVault: KeyVault = adapterFor('keyVault', kmsKeyVault);
