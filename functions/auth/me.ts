import { describeCaller } from '#shared/domain/access/api-key-lifecycle';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';

/** GET /v1/auth/me: who the presented key is, what it may do, and its limits. */
export const handler = restHandler({}, async ({ auth }) => ok(describeCaller(auth)));
