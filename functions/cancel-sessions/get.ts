import { readSession } from '#shared/domain/cancel-flows/cancel-session-lifecycle';
import { sessionView, stepView } from '#shared/domain/cancel-flows/cancel-sessions';
import { edgeHandler, tokenParam } from '#shared/http/edge-handler';
import type { SessionState } from '#shared/representations/schemas/cancel-session';

/** GET /api/cancel-session/{token} (§4.5): the session and its current step (null once every step is answered). */
export const handler = edgeHandler({ params: tokenParam }, async ({ params, now }) => {
  const session = await readSession(params.token, now);
  return { status: 200, body: { session: sessionView(session), step: stepView(session) } satisfies SessionState, corsOrigins: session.allowed_origins };
});
