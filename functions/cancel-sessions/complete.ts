import { completionQueue } from '#shared/composition/completion-queue';
import { completeSession } from '#shared/domain/cancel-flows/cancel-session-completion';
import { completeSessionBody } from '#shared/http/cancel-session-schemas';
import { edgeHandler, tokenParam } from '#shared/http/edge-handler';
import type { CompletedSession } from '#shared/representations/schemas/cancel-session';

/** POST /api/cancel-session/{token}/complete (§4.5): the outcome, feedback and events stored, the token used up. */
export const handler = edgeHandler({ params: tokenParam, body: completeSessionBody }, async ({ params, body, now }) => {
  const result = await completeSession({ completionQueue }, params.token, body, now);
  return { status: 200, body: { completed: true, outcome: result.outcome, session_id: result.sessionId } satisfies CompletedSession, corsOrigins: result.corsOrigins };
});
