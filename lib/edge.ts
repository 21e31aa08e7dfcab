import type { Construct, IDependable } from 'constructs';
import type { Data } from './data.ts';
import type { FunctionPlacement } from './function-stacks.ts';
import { RouteApi } from './route-api.ts';

export interface EdgeApiProps {
  data: Data;
  stageName: string;
  /**
   * Browser origins every merchant's sessions allow (CORS_ORIGINS); each merchant's active flow may
   * allow more (`allowed_origins`), which is why the functions, not the gateway, answer preflight.
   */
  corsOrigins: readonly string[];
  cloudWatchAccount?: IDependable;
  placement?: FunctionPlacement;
  /** The operator's name for the edge API (context edgeDomainName). */
  domainName?: string;
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
    super(scope, id, {
      name: 'edge',
      description: 'Payment recovery: cancel-session API and card-update page for browsers',
      surfaces: ['edge'],
      data: props.data,
      stageName: props.stageName,
      cloudWatchAccount: props.cloudWatchAccount,
      placement: props.placement,
      domainName: props.domainName,
      // OPTIONS goes to the resource's route function (shared/http/edge-handler.ts), which allows
      // the deployment's origins and those of the merchants' active flows.
      preflightInFunctions: true,
      // Subscribers cancelling, a few requests each: far below the merchant API's guard. The API has no
      // key to limit per caller, so this stage limit is what keeps a flood from its functions.
      throttle: { rateLimit: 100, burstLimit: 200 },
      logCallerAddress: false,
      // The card-update page builds its own address (Stripe Checkout's return) from this, never from Host.
      publicUrlVariable: 'EDGE_URL',
      gatewayResponseHeaders: gatewayCorsHeaders(props.corsOrigins),
      // The functions put Access-Control-Allow-Origin on their own responses (and preflights) from this list.
      environment: { CORS_ORIGINS: props.corsOrigins.join(',') },
    });
  }
}
