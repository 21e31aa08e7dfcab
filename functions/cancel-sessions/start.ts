import { startSession } from '#shared/domain/cancel-flows/cancel-session-lifecycle';
import { sessionView } from '#shared/domain/cancel-flows/cancel-sessions';
import { startSessionBody } from '#shared/http/cancel-session-schemas';
import { edgeHandler } from '#shared/http/edge-handler';
import type { StartedSession } from '#shared/representations/schemas/cancel-session';

/** POST /api/cancel-session/start (§4.5): a session on the merchant's active cancel flow; the token is shown only here. */
export const handler = edgeHandler({ body: startSessionBody, alsoAnswers: [401, 429] }, async ({ body, now, clientIp }) => {
  const { token, session } = await startSession(
    {
      merchantId: body.merchant_id,
      environment: body.environment,
      customerId: body.customer_id,
      subscriptionId: body.subscription_id,
      authHash: body.auth_hash,
    },
    clientIp,
    now,
  );
  return { status: 201, body: { token, session: sessionView(session) } satisfies StartedSession, corsOrigins: session.allowed_origins };
});
