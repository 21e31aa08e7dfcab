import * as z from '../zod.ts';
import { requiredText } from '../body-fields.ts';
import { FEEDBACK_TEXT_MAX_LENGTH, RESPONSE_JSON_MAX_BYTES } from '../domain/cancel-flows/cancel-sessions.ts';
import { ENVIRONMENTS } from '../model/tenant.ts';
import { unfitText } from './parse.ts';
import { OUTCOMES } from '../model/cancel-session.ts';

/** Request bodies of the cancel-session API (§4.5, snake_case). Every failure is a 400 with `param` (edge-handler.ts). */

/**
 * Why an answer cannot be stored, if it cannot: not JSON, or decoded text that messages, webhooks
 * or the table would get broken (its accepted offer is stored and shown as its own value).
 */
function answerProblem(text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'must be valid JSON (a JSON-encoded string)';
  }
  return unfitText(value) === undefined ? undefined : 'must hold only valid Unicode without NUL characters';
}

/**
 * Start: the merchant's own customer and subscription ids, as the widget knows them. `environment`
 * (live by default) is ours: which of the merchant's two flows, test or live, to run. `auth_hash` is
 * the merchant server's signature of the two ids (cancel-signing.ts); any text is taken as a try,
 * and a wrong one is 401, not 400.
 */
export const startSessionBody = z.strictObject({
  merchant_id: requiredText(255),
  customer_id: requiredText(255),
  subscription_id: requiredText(255),
  environment: z.enum(ENVIRONMENTS, { error: `must be one of ${ENVIRONMENTS.join(', ')}` }).default('live'),
  auth_hash: z
    .string({ error: 'must be a string' })
    .max(128, { error: 'must be at most 128 characters' })
    .meta({
      description:
        'Lowercase hex HMAC-SHA256 of "<customer_id>:<subscription_id>" (exactly as sent) under the cancel signing secret of this environment (GET /v1/cancel-flows/signing-secret), computed on your server. Required in live mode; in test mode checked when sent.',
    })
    .optional(),
});

export const advanceSessionBody = z.strictObject({
  response_json: z
    .string({ error: 'must be a JSON-encoded string' })
    .refine((text) => Buffer.byteLength(text, 'utf8') <= RESPONSE_JSON_MAX_BYTES, { error: `must be at most ${RESPONSE_JSON_MAX_BYTES} bytes as UTF-8` })
    .refine((text) => answerProblem(text) === undefined, { error: (issue) => answerProblem(issue.input as string) })
    .meta({ description: 'The answer as JSON text, at most 8,192 bytes as UTF-8; an accepted_offer in it is stored on the session' })
    .optional(),
  step_type: requiredText(64).optional(),
});

export const completeSessionBody = z.strictObject({
  outcome: z.enum(OUTCOMES, { error: `must be one of ${OUTCOMES.join(', ')}` }),
  reason: requiredText(255),
  sub_reason: requiredText(255).optional(),
  free_text: z
    .string({ error: 'must be a string' })
    .max(FEEDBACK_TEXT_MAX_LENGTH, { error: `must be at most ${FEEDBACK_TEXT_MAX_LENGTH} characters` })
    .optional(),
});
