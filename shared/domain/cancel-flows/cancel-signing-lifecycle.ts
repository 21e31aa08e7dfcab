import { findSigningSecrets, saveSigningSecrets } from '../../store/cancel-signing-secrets.ts';
import { firstSigningSecrets, rolled, type ExpirePrevious } from './cancel-signing.ts';
import { stateConflict } from '../../model/errors.ts';
import type { Tenant } from '../../model/tenant.ts';
import { LOST, MERCHANT_WRITE, writeOptimistically, type ContentionPolicy } from '../contention.ts';
import type { CancelSigningSecrets } from '../../model/cancel-signing-secrets.ts';

/**
 * The cancel signing secret of a merchant's environment (GET and roll under /v1/cancel-flows/signing-secret).
 * Made on first read, not at merchant creation, so merchants created before signing existed get one
 * the same way (docs/decisions.md, "Signed cancel-session starts").
 */
const refusedAfter = (refusal: string): ContentionPolicy => ({ write: 'cancel_signing', attempts: 5, backoff: MERCHANT_WRITE, exhausted: () => stateConflict(refusal) });

/** The secrets, made now if the tenant has none; two first reads racing both get the one that was stored. */
export async function signingSecretsOf(tenant: Tenant, now: Date): Promise<CancelSigningSecrets> {
  return writeOptimistically(refusedAfter('The cancel signing secret changed while it was read; retry the request.'), async () => {
    const stored = await findSigningSecrets(tenant);
    if (stored) return stored;
    const first = firstSigningSecrets(now);
    return (await saveSigningSecrets(tenant, first, null)) ? first : LOST;
  });
}

/** A new current secret; the one it replaces is still accepted for 24 hours unless told 'now'. Concurrent rolls each take effect in turn. */
export async function rollSigningSecret(tenant: Tenant, expirePrevious: ExpirePrevious, now: Date): Promise<CancelSigningSecrets> {
  return writeOptimistically(refusedAfter('The cancel signing secret was rolled by another request at the same time; retry the request.'), async () => {
    const current = await signingSecretsOf(tenant, now);
    const next = rolled(current, now, expirePrevious);
    return (await saveSigningSecrets(tenant, next, current.version)) ? next : LOST;
  });
}
