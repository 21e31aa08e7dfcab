import { Duration } from 'aws-cdk-lib';
import type { CorsOptions } from 'aws-cdk-lib/aws-apigateway';
import type { Construct, IDependable } from 'constructs';
import { ROUTES, type Route } from '../shared/routes.ts';
import type { Data } from './data.ts';
import type { FunctionPlacement } from './function-stacks.ts';
import { RouteApi } from './route-api.ts';

export interface EdgeApiProps {
  data: Data;
  stageName: string;
  /** Browser origins allowed to call the API; empty answers no preflight, so browsers cannot. */
  corsOrigins: readonly string[];
  cloudWatchAccount?: IDependable;
  placement?: FunctionPlacement;
}

/** Preflight only when there is someone to allow and something to call (CDK rejects empty lists). */
function corsFor(origins: readonly string[], routes: readonly Route[]): CorsOptions | undefined {
  const methods = [...new Set(routes.map((route) => route.method))];
  if (origins.length === 0 || methods.length === 0) return undefined;
  return {
    allowOrigins: [...origins],
    allowMethods: methods,
    allowHeaders: ['Content-Type', 'Authorization'],
    maxAge: Duration.hours(1),
  };
}

/**
 * Gateway-generated errors carry no CORS header unless static; a browser could not read them. A
 * single origin (or '*') can be set statically; several would need the function to echo the match.
 */
function gatewayCorsHeaders(origins: readonly string[]): Record<string, string> {
  return origins.length === 1 ? { 'Access-Control-Allow-Origin': `'${origins[0]}'` } : {};
}

/**
 * The customers' cancel-session API, called from browsers on merchants' pages: separate from the
 * merchant API so its CORS policy, throttling and exposure never widen the merchant API's. Created
 * even with no edge routes yet, so its URL (and the fallback's 404) is stable from the first deploy.
 */
export class EdgeApi extends RouteApi {
  constructor(scope: Construct, id: string, props: EdgeApiProps) {
    const routes = ROUTES.filter((route) => route.surface === 'edge');
    const cors = corsFor(props.corsOrigins, routes);
    super(scope, id, {
      name: 'edge',
      description: 'Payment recovery: cancel-session API for browsers',
      surfaces: ['edge'],
      data: props.data,
      stageName: props.stageName,
      cloudWatchAccount: props.cloudWatchAccount,
      placement: props.placement,
      cors,
      gatewayResponseHeaders: gatewayCorsHeaders(props.corsOrigins),
      // The functions put Access-Control-Allow-Origin on their own responses from this list.
      environment: { CORS_ORIGINS: props.corsOrigins.join(',') },
    });
  }
}
