import type { EncryptionContext } from '../../ports/key-vault.ts';
import type { Tenant } from '../../model/tenant.ts';

/** The context's `purpose`: the functions' grants on the credentials key (lib/credentials-key.ts) hold only for it. */
export const CREDENTIALS_PURPOSE = 'processor-credentials';

/** What a connection's sealed credentials are bound to: whose they are and for which processor. */
export function credentialContext(tenant: Tenant, psp: string): EncryptionContext {
  return { purpose: CREDENTIALS_PURPOSE, merchant_id: tenant.merchantId, environment: tenant.environment, psp };
}
