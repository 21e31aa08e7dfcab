import * as z from '../zod.ts';
import { cancelFlowSteps } from './cancel-flow-steps.ts';
import { OUTCOMES } from './cancel-session.ts';
import { ENVIRONMENTS } from './tenant.ts';

/**
 * A stored cancel session and a completion as the dead-letter queue carries it, as zod schemas: the
 * queue worker parses what it receives with them, and the session and completion types come from
 * them. Apart from cancel-sessions.ts because building them builds every step schema, which the
 * session endpoints never parse with (docs/decisions.md,
 * "Bundles and cold start: import work").
 */
const sessionResponse = z.object({
  step: z.number().int(),
  step_type: z.string(),
  response_json: z.string(),
  /** The response's accepted_offer as JSON text (null when the response had none): any JSON value, kept verbatim. */
  accepted_offer_json: z.string().nullable(),
  recorded_at: z.string(),
});

/** The stored session; also travels inside a queued completion, so it has a schema the worker parses with. */
export const cancelSessionSchema = z.object({
  session_id: z.string(),
  merchant_id: z.string(),
  environment: z.enum(ENVIRONMENTS),
  cancel_flow_id: z.string(),
  flow_version: z.number().int(),
  /** A copy of the flow's steps at start: editing the flow never changes a session under the subscriber. */
  steps: cancelFlowSteps,
  allowed_origins: z.array(z.string()),
  /** The merchant's own ids, as the widget knows them (docs/decisions.md, "Cancel flows"). */
  customer_id: z.string(),
  subscription_id: z.string(),
  /** 1-based; steps.length + 1 once the last step's response is in (the flow is finished, only complete remains). */
  current_step: z.number().int(),
  status: z.literal('in_progress'),
  responses: z.array(sessionResponse),
  accepted_offer_json: z.string().nullable(),
  /** The step whose response set accepted_offer: the offer applied on a save is that step's, never the client's words. */
  accepted_offer_step: z.number().int().nullable(),
  started_at: z.string(),
  last_activity_at: z.string(),
  /** Epoch seconds; also the table's TTL attribute. */
  expires_at: z.number().int(),
});

export type CancelSession = z.infer<typeof cancelSessionSchema>;
export type SessionResponse = z.infer<typeof sessionResponse>;

/** Everything needed to persist a completion without the session item: what the dead-letter queue carries. */
export const cancelCompletionSchema = z.object({
  kind: z.literal('cancel-completion'),
  token_hash: z.string().regex(/^[0-9a-f]{64}$/),
  session: cancelSessionSchema,
  outcome: z.enum(OUTCOMES),
  reason: z.string(),
  sub_reason: z.string().nullable(),
  free_text: z.string().nullable(),
  completed_at: z.string(),
});

export type CancelCompletion = z.infer<typeof cancelCompletionSchema>;

/** What one advance writes: the response appended, and what it does to the session's accepted offer. */
export interface AdvanceChange {
  response: SessionResponse;
  /** Present when the response named accepted_offer (null included: declining clears an earlier acceptance). */
  acceptedOffer?: { json: string | null; step: number | null };
}
