import { runtime } from '../runtime.ts';
import { scopeSatisfied } from '../model/api-key.ts';
import { ServiceError } from '../model/errors.ts';
import { routeFor } from '../routes.ts';
import { requireAuth, type ServiceMiddleware } from './context.ts';

function describe(scope: readonly string[] | 'any'): string {
  return scope === 'any' ? 'any' : scope.map((s) => `'${s}'`).join(' or ');
}

/** Scope per route from the route table (§5 rule 4), then the trial gate on writes. */
export function authorize(): ServiceMiddleware {
  return {
    before: (request) => {
      const { event } = request;
      const grant = requireAuth(request.context);
      const route = routeFor(event.httpMethod, event.resource);
      if (!route?.scope) throw new Error(`No scoped route for ${event.httpMethod} ${event.resource}`);
      if (!scopeSatisfied(grant.scopes, route.scope)) {
        throw new ServiceError(
          'insufficient_scope',
          `This API key does not have the ${describe(route.scope)} scope required for ${route.method} ${route.path}.`,
        );
      }
      const trialEndsAt = grant.settings.trialEndsAt;
      if (event.httpMethod !== 'GET' && trialEndsAt !== null && trialEndsAt <= runtime.clock.now().toISOString()) {
        throw new ServiceError('trial_expired', `The trial ended at ${trialEndsAt}. Upgrade the plan to make changes; reads keep working.`);
      }
    },
  };
}
