import { advanceSession } from '#shared/domain/cancel-flows/cancel-session-lifecycle';
import { sessionView } from '#shared/domain/cancel-flows/cancel-sessions';
import { advanceSessionBody } from '#shared/http/cancel-session-schemas';
import { edgeHandler, tokenParam } from '#shared/http/edge-handler';
import type { AdvancedSession } from '#shared/representations/schemas/cancel-session';

/** POST /api/cancel-session/{token}/advance (§4.5): records the response to the current step and moves on. */
export const handler = edgeHandler({ params: tokenParam, body: advanceSessionBody }, async ({ params, body, now }) => {
  const session = await advanceSession(params.token, body, now);
  const { sessionId, currentStep, status, responses } = sessionView(session);
  return { status: 200, body: { session: { sessionId, currentStep, status, responses } } satisfies AdvancedSession, corsOrigins: session.allowed_origins };
});
