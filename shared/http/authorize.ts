import { isDeepStrictEqual } from 'node:util';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { runtime } from '../runtime.ts';
import { scopeSatisfied } from '../model/api-key.ts';
import { ServiceError } from '../model/errors.ts';
import { routeFor, type Route } from '../routes.ts';
import { header, requireAuth, type ServiceMiddleware } from './context.ts';
import { parseJsonBody } from './parse.ts';

function describe(scope: readonly string[] | 'any'): string {
  return scope === 'any' ? 'any' : scope.map((s) => `'${s}'`).join(' or ');
}

/** Whether this request is the safety action its route declares allowed after a trial (a body that does not parse is not). */
function allowedAfterTrial(route: Route, event: APIGatewayProxyEvent): boolean {
  const declared = route.afterTrial;
  if (declared === undefined) return false;
  if (declared === true) return true;
  try {
    return isDeepStrictEqual(parseJsonBody(event.body, event.isBase64Encoded, header(event, 'content-type')), declared.onlyBody);
  } catch {
    return false;
  }
}

/** Scope per route from the route table (§5 rule 4), then the trial gate on writes, but for the safety actions routes declare. */
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
      const trialOver = trialEndsAt !== null && trialEndsAt <= runtime.clock.now().toISOString();
      if (event.httpMethod !== 'GET' && trialOver && !allowedAfterTrial(route, event)) {
        throw new ServiceError(
          'trial_expired',
          `The trial ended at ${trialEndsAt}. Upgrade the plan to make changes; reads keep working, and so do revoking API keys, erasing customers, disabling (PUT {"enabled": false}) or deleting webhook endpoints and replacing processor credentials.`,
        );
      }
    },
  };
}
