import * as z from '../../zod.ts';
import type { ErrorCode } from '../../model/errors.ts';
import type { ErrorBody } from '../../http/errors.ts';
import type { Assert, Same } from './common.ts';

const ERROR_CODES = [
  'invalid_request',
  'invalid_api_key',
  'invalid_signature',
  'insufficient_scope',
  'trial_expired',
  'ip_not_allowed',
  'recovery_attempt_limit_exceeded',
  'network_retry_limit',
  'campaign_limit_exceeded',
  'resource_not_found',
  'method_not_allowed',
  'state_conflict',
  'idempotency_key_in_use',
  'validation_error',
  'idempotency_key_reused',
  'payload_too_large',
  'rate_limit_exceeded',
  'lock_timeout',
  'internal_error',
] as const satisfies readonly ErrorCode[];

/** §7: every error, on every surface, in one envelope. */
export const errorSchema = z
  .strictObject({
    error: z.strictObject({
      code: z.enum(ERROR_CODES),
      message: z.string(),
      param: z.string().optional().meta({ description: 'the offending parameter, dotted (steps.0.channel)' }),
      request_id: z.string().meta({ description: 'also in the X-Request-Id header' }),
      retry_after: z.int().min(0).optional().meta({ description: '429 only: seconds until a request is admitted again' }),
    }),
  })
  .meta({ id: 'Error' });

export type ErrorCodesListed = Assert<Same<(typeof ERROR_CODES)[number], ErrorCode>>;
export type ErrorMatches = Assert<Same<ErrorBody, z.output<typeof errorSchema>>>;
