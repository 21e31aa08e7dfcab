import { findSigningSecrets, saveSigningSecrets } from '../../store/cancel-signing-secrets.ts';
import { firstSigningSecrets, rolled, type CancelSigningSecrets, type ExpirePrevious } from './cancel-signing.ts';
import { stateConflict } from '../../model/errors.ts';
import type { Tenant } from '../../model/tenant.ts';

/**
 * The cancel signing secret of a merchant's environment (GET and roll under /v1/cancel-flows/signing-secret).
 * Made on first read, not at merchant creation, so merchants created before signing existed get one
 * the same way (docs/decisions.md, "Signed cancel-session starts").
 */
const MAX_TRIES = 5;

/** The secrets, made now if the tenant has none; two first reads racing both get the one that was stored. */
export async function signingSecretsOf(tenant: Tenant, now: Date): Promise<CancelSigningSecrets> {
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const stored = await findSigningSecrets(tenant);
    if (stored) return stored;
    const first = firstSigningSecrets(now);
    if (await saveSigningSecrets(tenant, first, null)) return first;
  }
  throw stateConflict('The cancel signing secret changed while it was read; retry the request.');
}

/** A new current secret; the one it replaces is still accepted for 24 hours unless told 'now'. Concurrent rolls each take effect in turn. */
export async function rollSigningSecret(tenant: Tenant, expirePrevious: ExpirePrevious, now: Date): Promise<CancelSigningSecrets> {
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const current = await signingSecretsOf(tenant, now);
    const next = rolled(current, now, expirePrevious);
    if (await saveSigningSecrets(tenant, next, current.version)) return next;
  }
  throw stateConflict('The cancel signing secret was rolled by another request at the same time; retry the request.');
}
