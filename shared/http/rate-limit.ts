import { runtime } from '../composition.ts';
import { rateLimited } from '../domain/errors.ts';
import { requestsPerWindow } from '../domain/plans.ts';
import { describeWindow, secondsUntilAdmitted, windowCutoff } from '../domain/sliding-window.ts';
import { admitRequest } from '../store/rate-limits.ts';
import { requireAuth, type ServiceMiddleware } from './context.ts';

/** §8: per merchant and environment, sliding 60 s window, counted atomically in the table across instances. */
export function rateLimit(): ServiceMiddleware {
  return {
    before: async (request) => {
      const { tenant, settings } = requireAuth(request.context);
      const limit = requestsPerWindow(settings.plan, settings.rateLimitOverride);
      const nowMs = runtime.clock.now().getTime();
      const outcome = await admitRequest(tenant, limit, nowMs, windowCutoff(nowMs));
      request.context.rateWindow = describeWindow(outcome.log, limit, nowMs);
      if (!outcome.admitted) {
        request.context.rateWindow.remaining = 0;
        throw rateLimited(Math.max(1, secondsUntilAdmitted(outcome.log, limit, nowMs)));
      }
    },
  };
}
