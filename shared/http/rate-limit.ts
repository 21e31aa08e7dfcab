import { runtime } from '../runtime.ts';
import { rateLimited } from '../model/errors.ts';
import { requestsPerWindow } from '../model/plans.ts';
import { describeWindow, retryAfterSeconds } from '../model/sliding-window.ts';
import { rateLimitPk } from '../store/keys.ts';
import { admitRequest } from '../store/rate-limits.ts';
import { requireAuth, type ServiceContext, type ServiceMiddleware } from './context.ts';

/** Methods that change nothing: their action may run while the request is being admitted. */
const READS = new Set(['GET', 'HEAD']);

/** Counts the request in the merchant's window; refused, it throws the 429 (with the window in the context for the headers). */
async function admit(context: ServiceContext): Promise<void> {
  const { tenant, kind, settings } = requireAuth(context);
  const limit = requestsPerWindow(settings.plan, settings.rateLimitOverride);
  const nowMs = runtime.clock.now().getTime();
  const outcome = await admitRequest(rateLimitPk(tenant, kind), limit, nowMs);
  context.rateWindow = describeWindow(outcome.counts, limit, nowMs);
  if (!outcome.admitted) {
    context.rateWindow.remaining = 0;
    throw rateLimited(retryAfterSeconds(outcome.counts, limit, nowMs));
  }
}

/** The admission a read left running, taken once: whichever of after/onError settles it first. */
function takePending(context: ServiceContext): Promise<void> | undefined {
  const pending = context.pendingAdmission;
  context.pendingAdmission = undefined;
  return pending;
}

/** Lets the admission's request leave: the SDK writes it within the microtasks that send() starts. */
const requestSent = () => new Promise((resolve) => setImmediate(resolve));

/**
 * §8: per merchant and environment, sliding 60 s window counted per second, atomically in the
 * table across instances. A write is admitted before anything with an effect runs, so a refused
 * write never happens; what it does meanwhile (`whileAdmitting`: its validation, pure CPU) fills the
 * round trip instead of following it, and its outcome is only reported after admission. A read is
 * admitted alongside its action: the count and the data are one round trip instead of two, and a
 * refused read answers 429 exactly as before, its data discarded. Whatever else the read ran into
 * (a 403 scope, a 404), a refusal answers first, as when admission came first.
 */
export function rateLimit(): ServiceMiddleware {
  return {
    before: async (request) => {
      const admission = admit(request.context);
      // Settled below, or in after or onError for a read; until then a refusal must not count as unhandled.
      admission.catch(() => undefined);
      if (READS.has(request.event.httpMethod)) {
        request.context.pendingAdmission = admission;
        return;
      }
      const meanwhile = request.context.whileAdmitting;
      if (meanwhile) {
        await requestSent();
        meanwhile();
      }
      await admission;
    },
    after: async (request) => {
      await takePending(request.context);
    },
    onError: async (request) => {
      try {
        await takePending(request.context);
      } catch (refusal) {
        // Replaces the answer the inner middleware already made of the read's own error.
        request.error = refusal as Error;
        request.response = null;
      }
    },
  };
}
