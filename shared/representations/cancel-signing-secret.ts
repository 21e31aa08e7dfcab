import { currentSecret, graceEndsAt } from '../domain/cancel-flows/cancel-signing.ts';
import type { CancelSigningSecretResource } from './schemas/cancel-signing-secret.ts';
import type { CancelSigningSecrets } from '../model/cancel-signing-secrets.ts';

/** The current secret (shown whenever asked, as the merchant's server needs it) and how long rolled-out ones still count. */
export function cancelSigningSecretResource(record: CancelSigningSecrets, now: Date): CancelSigningSecretResource {
  const { secret, created_at } = currentSecret(record);
  return { secret, created_at, previous_secret_expires_at: graceEndsAt(record, now) };
}
