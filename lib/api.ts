import type { Construct, IDependable } from 'constructs';
import type { Data } from './data.ts';
import type { FunctionPlacement } from './function-stacks.ts';
import { RouteApi } from './route-api.ts';

export interface MerchantApiProps {
  data: Data;
  stageName: string;
  cloudWatchAccount?: IDependable;
  placement?: FunctionPlacement;
  /** The operator's name for the API (context domainName), which processor webhook URLs then use. */
  domainName?: string;
}

/**
 * The merchants' REST API (/v1, API keys) and the processors' webhooks: both are server-to-server,
 * so they share one API and one URL; no CORS, as no browser should call them.
 */
export class MerchantApi extends RouteApi {
  constructor(scope: Construct, id: string, props: MerchantApiProps) {
    super(scope, id, {
      name: 'api',
      description: 'Payment recovery: merchant REST API and processor webhooks',
      surfaces: ['rest', 'webhook'],
      // A guard for the stage, far above what merchants' own limits admit (an enterprise merchant is
      // 1,000 a minute, §8): what it stops is a flood, before it reaches any function. Processors'
      // webhooks share it and redeliver what is refused.
      throttle: { rateLimit: 500, burstLimit: 1000 },
      logCallerAddress: true,
      // Processor webhook URLs shown to merchants are built from it, never from a request's Host (shared/public-url.ts).
      publicUrlVariable: 'API_BASE_URL',
      ...props,
    });
  }
}
