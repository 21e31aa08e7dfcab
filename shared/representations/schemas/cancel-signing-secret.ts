import * as z from '../../zod.ts';
import { SIGNING_SECRET_PATTERN } from '../../domain/cancel-flows/cancel-signing.ts';
import { timestamp } from './common.ts';

/** The cancel signing secret of the key's environment: what the merchant's server signs starts with. */
export const cancelSigningSecretSchema = z
  .strictObject({
    secret: z.string().regex(SIGNING_SECRET_PATTERN),
    created_at: timestamp,
    previous_secret_expires_at: timestamp
      .nullable()
      .meta({ description: 'Until when the secret (or secrets) rolled out in the last 24 hours are still accepted; null when none is' }),
  })
  .meta({ id: 'CancelSigningSecret' });

export type CancelSigningSecretResource = z.output<typeof cancelSigningSecretSchema>;
