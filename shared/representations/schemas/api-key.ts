import * as z from '../../zod.ts';
import { SCOPES, WIDGET_SCOPE } from '../../model/api-key.ts';
import type { describeCaller } from '../../domain/access/api-key-lifecycle.ts';
import { PLAN_NAMES, type Plan } from '../../model/plans.ts';
import { ENVIRONMENTS } from '../../model/tenant.ts';
import { count, prefixedId, timestamp, type Assert, type Same } from './common.ts';

const grantedScopes = z.array(z.enum([...SCOPES, WIDGET_SCOPE]));

/** An API key; the secret itself is never part of it. */
export const apiKeySchema = z
  .strictObject({
    id: prefixedId('key'),
    object: z.literal('api_key'),
    name: z.string(),
    type: z.enum(['secret', 'publishable']),
    environment: z.enum(ENVIRONMENTS),
    scopes: grantedScopes,
    redacted_key: z.string(),
    status: z.enum(['active', 'expired', 'revoked']),
    created_at: timestamp,
    expires_at: timestamp.nullable(),
    rotated_at: timestamp.nullable(),
    revoked_at: timestamp.nullable(),
  })
  .meta({ id: 'ApiKey' });

/** Create and rotate: the key with its new secret, shown in this response only. */
export const apiKeyWithSecretSchema = apiKeySchema
  .extend({ secret: z.string().regex(/^svc_(live|test|pub)_[0-9A-Za-z]{32}$/) })
  .meta({ id: 'ApiKeyWithSecret' });

/** GET /v1/auth/me: who the presented key is, what it may do, and its limits. */
export const callerSchema = z
  .strictObject({
    merchant_id: prefixedId('mer'),
    environment: z.enum(ENVIRONMENTS),
    livemode: z.boolean(),
    key_id: prefixedId('key'),
    key_type: z.enum(['secret', 'publishable']),
    scopes: grantedScopes,
    key_expires_at: timestamp.nullable(),
    plan: z.enum(PLAN_NAMES as [Plan, ...Plan[]]).optional().meta({ description: 'absent for a publishable key (it lives in web pages), as are trial_ends_at and ip_allowlist' }),
    trial_ends_at: timestamp.nullable().optional(),
    rate_limit: z.strictObject({ limit: count, window_seconds: count }),
    ip_allowlist: z.array(z.string()).optional(),
  })
  .meta({ id: 'Caller' });

export type ApiKeyResource = z.output<typeof apiKeySchema>;

export type CallerMatches = Assert<Same<ReturnType<typeof describeCaller>, z.output<typeof callerSchema>>>;
