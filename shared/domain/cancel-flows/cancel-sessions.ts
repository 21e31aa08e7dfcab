import { createHash } from 'node:crypto';
import { expiryAfter, type Outcome } from '../../model/cancel-session.ts';
import type { AdvanceChange, CancelCompletion, CancelSession, SessionResponse } from '../../model/cancel-session-schema.ts';
import type { CancelFlowStep, OfferConfig } from '../../model/cancel-flow-steps.ts';
import type { CancelFlow } from '../../model/cancel-flow.ts';
import { invalidRequest } from '../../model/errors.ts';
import type { Environment, Tenant } from '../../model/tenant.ts';

/**
 * Cancel sessions (§2.5, §3.4, §4.5): one subscriber walking through the active cancel flow. Pure
 * rules here; shared/store/cancel-sessions.ts keeps them, cancel-session-lifecycle.ts runs the endpoints.
 */

/**
 * response_json is kept on the session (with its accepted offer a second time) and copied into the
 * feedback; this bounds both (and the queued completion). In bytes as UTF-8: ten answers beside a
 * flow's 128 KB of steps must fit DynamoDB's 400 KB item, whatever the script.
 */
export const RESPONSE_JSON_MAX_BYTES = 8192;
export const FEEDBACK_TEXT_MAX_LENGTH = 5000;

/** A v4 UUID as crypto.randomUUID writes it; anything else cannot be a token and is 404 without a read. */
export const TOKEN_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Only this is stored: a leaked table or log never yields a usable token. A fast hash is right for 122 random bits. */
export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

export interface SessionStart {
  merchantId: string;
  environment: Environment;
  customerId: string;
  subscriptionId: string;
  /** The merchant server's signature of the two ids (cancel-signing.ts). */
  authHash?: string;
}

export function newSession(sessionId: string, start: SessionStart, flow: CancelFlow, now: Date): CancelSession {
  const at = now.toISOString();
  return {
    session_id: sessionId,
    merchant_id: start.merchantId,
    environment: start.environment,
    cancel_flow_id: flow.id,
    flow_version: flow.version,
    steps: flow.steps,
    allowed_origins: flow.allowed_origins,
    customer_id: start.customerId,
    subscription_id: start.subscriptionId,
    current_step: 1,
    status: 'in_progress',
    responses: [],
    accepted_offer_json: null,
    accepted_offer_step: null,
    started_at: at,
    last_activity_at: at,
    expires_at: expiryAfter(now),
  };
}

export interface AdvanceInput {
  response_json?: string;
  step_type?: string;
}

const jsonOrNull = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

/**
 * §4.5 advance, decided from the session as read. Advancing past the last step is allowed once: it
 * records the last step's answer and leaves currentStep at steps + 1, where step is null and only
 * complete remains; one more is refused (400), so the history stays bounded by the flow.
 */
export function advanceChange(session: CancelSession, input: AdvanceInput, now: Date): AdvanceChange {
  const step = session.current_step;
  if (step > session.steps.length) {
    throw invalidRequest(
      `The cancel flow has no step ${step}: all ${session.steps.length} steps are answered. Complete the session instead.`,
    );
  }
  const stepType = session.steps[step - 1]!.step_type;
  // Optional (§4.5), but when sent it names the step the widget answered: another one is an answer to the wrong step.
  if (input.step_type !== undefined && input.step_type !== stepType) {
    throw invalidRequest(`Step ${step} of this cancel flow is a ${stepType} step, not ${input.step_type}.`, 'step_type');
  }
  const responseJson = input.response_json ?? '{}';
  const parsed: unknown = JSON.parse(responseJson);
  const names = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) && Object.hasOwn(parsed, 'accepted_offer');
  const offered = names ? (parsed as { accepted_offer: unknown }).accepted_offer : undefined;
  const offerJson = offered === undefined || offered === null ? null : JSON.stringify(offered);
  const response: SessionResponse = {
    step,
    step_type: stepType,
    response_json: responseJson,
    accepted_offer_json: offerJson,
    recorded_at: now.toISOString(),
  };
  // `false` (like null) declines: kept as the value it is, but it accepts nothing.
  const accepts = offerJson !== null && offered !== false;
  return names ? { response, acceptedOffer: { json: offerJson, step: accepts ? step : null } } : { response };
}

/**
 * Whether an advance is the widget's resend of the one the session recorded last: it names the step
 * that was just answered (not the current one) and carries the same answer. Answered with the session
 * as it is, instead of a 400 for the wrong step, when the first send's answer never reached the
 * widget. Without step_type a resend cannot be told from an answer to the next step.
 */
export function isResentAdvance(session: CancelSession, input: AdvanceInput): boolean {
  const last = session.responses.at(-1);
  if (input.step_type === undefined || last === undefined || last.step !== session.current_step - 1) return false;
  const current = session.steps[session.current_step - 1];
  return input.step_type === last.step_type && input.step_type !== current?.step_type && (input.response_json ?? '{}') === last.response_json;
}

/** The session after an advance (what the conditional write produces in the table). */
export function applyAdvance(session: CancelSession, change: AdvanceChange, now: Date): CancelSession {
  return {
    ...session,
    current_step: session.current_step + 1,
    responses: [...session.responses, change.response],
    ...(change.acceptedOffer ? { accepted_offer_json: change.acceptedOffer.json, accepted_offer_step: change.acceptedOffer.step } : {}),
    last_activity_at: now.toISOString(),
    expires_at: expiryAfter(now),
  };
}

/** §2.5, camelCase. customerId and subscriptionId are the ids the widget sent. */
export function sessionView(session: CancelSession) {
  return {
    sessionId: session.session_id,
    cancelFlowId: session.cancel_flow_id,
    merchantId: session.merchant_id,
    customerId: session.customer_id,
    subscriptionId: session.subscription_id,
    currentStep: session.current_step,
    status: session.status,
    responses: session.responses.map((response) => ({
      stepType: response.step_type,
      responseJson: response.response_json,
      acceptedOffer: jsonOrNull(response.accepted_offer_json),
    })),
    acceptedOffer: jsonOrNull(session.accepted_offer_json),
    startedAt: session.started_at,
  };
}

/** §4.5 get's step: the current step's descriptor, or null when there is none to load (the flow is finished). */
export function stepView(session: CancelSession): { stepType: string; configJson: string } | null {
  const step: CancelFlowStep | undefined = session.steps[session.current_step - 1];
  return step ? { stepType: step.step_type, configJson: JSON.stringify(step.config) } : null;
}

/**
 * The offer a save applies: the flow's own configuration of the offer step where the subscriber
 * accepted, so a client cannot invent its own terms. None when nothing was accepted, or it was
 * accepted on a step that is not an offer.
 */
export function acceptedOfferOf(session: Pick<CancelSession, 'steps' | 'accepted_offer_json' | 'accepted_offer_step'>): { step: number; offer: OfferConfig } | null {
  if (session.accepted_offer_json === null || session.accepted_offer_step === null) return null;
  const step = session.steps[session.accepted_offer_step - 1];
  return step?.step_type === 'offer' ? { step: session.accepted_offer_step, offer: step.config } : null;
}

export interface CompletionInput {
  outcome: Outcome;
  reason: string;
  sub_reason?: string;
  free_text?: string;
}


export function completionOf(tokenHash: string, session: CancelSession, input: CompletionInput, now: Date): CancelCompletion {
  return {
    kind: 'cancel-completion',
    token_hash: tokenHash,
    session,
    outcome: input.outcome,
    reason: input.reason,
    sub_reason: input.sub_reason ?? null,
    free_text: input.free_text ?? null,
    completed_at: now.toISOString(),
  };
}
