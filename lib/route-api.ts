import { Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct, type IDependable } from 'constructs';
import { FALLBACK_HANDLER, ROUTES, type Route, type Surface } from '../shared/routes.ts';
import type { Data } from './data.ts';
import { underOwner, type FunctionPlacement } from './function-stacks.ts';
import { addEnvelopedGatewayResponses } from './gateway-responses.ts';
import { constructIdFor, LOG_RETENTION, RouteFunction } from './route-function.ts';
import { assertDeployablePaths, resourcePaths } from './route-paths.ts';

/**
 * One JSON object per request; field names match the functions' own log lines where they overlap.
 * The route's resource, never the path: on the edge API the path holds the session token, its only
 * credential. The caller's address only where callers are merchants' servers: on the edge API it is
 * a subscriber's browser, personal data the logs do not keep.
 */
const accessLogFormat = (logCallerAddress: boolean) =>
  AccessLogFormat.custom(
    JSON.stringify({
      request_id: AccessLogField.contextRequestId(),
      extended_request_id: AccessLogField.contextExtendedRequestId(),
      time: AccessLogField.contextRequestTime(),
      ...(logCallerAddress ? { ip: AccessLogField.contextIdentitySourceIp() } : {}),
      user_agent: AccessLogField.contextIdentityUserAgent(),
      method: AccessLogField.contextHttpMethod(),
      resource: AccessLogField.contextResourcePath(),
      protocol: AccessLogField.contextProtocol(),
      status: AccessLogField.contextStatus(),
      response_length: AccessLogField.contextResponseLength(),
      latency_ms: AccessLogField.contextResponseLatency(),
      integration_latency_ms: AccessLogField.contextIntegrationLatency(),
      integration_status: AccessLogField.contextIntegrationStatus(),
      error: AccessLogField.contextErrorMessage(),
      error_type: AccessLogField.contextErrorResponseType(),
      xray_trace_id: AccessLogField.contextXrayTraceId(),
    }),
  );

export interface RouteApiProps {
  /** Short name, suffixed to the stack name: the API's name in the console. */
  name: string;
  description: string;
  /** The surfaces this API fronts; its routes are the route table's entries on them. */
  surfaces: readonly Surface[];
  data: Data;
  stageName: string;
  /** The region's API Gateway logging role; the stage waits for it, as logging fails until it is set. */
  cloudWatchAccount?: IDependable;
  /**
   * Route OPTIONS on each route's resource to that route's function, which answers the preflight
   * itself (the edge API: allowed origins include each merchant's own, known only at run time).
   * Default: no preflight; OPTIONS reaches the fallback like any other unserved method.
   */
  preflightInFunctions?: boolean;
  /** Static headers added to the gateway's own error responses (e.g. CORS). */
  gatewayResponseHeaders?: Record<string, string>;
  /** Extra environment for every function of this API. */
  environment?: Record<string, string>;
  /** The operator's own name for this API (CustomDomain maps it to the stage); absent, it is reached at its execute-api URL. */
  domainName?: string;
  /** An environment variable giving every function of this API its public URL (`publicUrl`). */
  publicUrlVariable?: string;
  /** The stage's steady-state requests per second and burst, above which API Gateway answers 429 before any function runs. */
  throttle: { rateLimit: number; burstLimit: number };
  /** Whether access logs keep the caller's address: yes for merchants' servers, no for subscribers' browsers. */
  logCallerAddress: boolean;
  /** Where the functions are created; the API itself stays here. Default: under this construct. */
  placement?: FunctionPlacement;
}

/**
 * A REST API built from route table entries: one function per route behind a Lambda proxy
 * integration, and a fallback function answering everything else in the service's envelope (404 for
 * unknown paths, 405 for known paths under another method). API Gateway prefers an explicit method
 * over ANY, and any resource over {proxy+}, so the fallback only sees what no route serves.
 */
export class RouteApi extends Construct {
  readonly api: RestApi;
  readonly routeFunctions: ReadonlyMap<Route, RouteFunction>;
  readonly fallback: RouteFunction;
  /**
   * Where callers reach this API: `https://<domainName>`, or the stage's execute-api URL. Built from
   * the API's id and the stage's name, not `api.url`, which refers to the stage, which waits for the
   * methods, which wait for the functions: a function given `api.url` would wait for itself.
   */
  readonly publicUrl: string;

  constructor(scope: Construct, id: string, props: RouteApiProps) {
    super(scope, id);
    const routes = ROUTES.filter((route) => props.surfaces.includes(route.surface));
    assertDeployablePaths(routes);

    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: LOG_RETENTION });
    this.api = new RestApi(this, 'RestApi', {
      restApiName: `${Stack.of(this).stackName}-${props.name}`,
      description: props.description,
      endpointTypes: [EndpointType.REGIONAL],
      // The shared ApiGatewayAccount construct sets the logging role; one per API would collide.
      cloudWatchRole: false,
      deployOptions: {
        stageName: props.stageName,
        tracingEnabled: true,
        metricsEnabled: true,
        // Execution logs for errors only; request and response bodies (personal data) are never logged.
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: accessLogFormat(props.logCallerAddress),
        throttlingRateLimit: props.throttle.rateLimit,
        throttlingBurstLimit: props.throttle.burstLimit,
      },
    });
    const stack = Stack.of(this);
    this.publicUrl =
      props.domainName === undefined ? `https://${this.api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/${props.stageName}` : `https://${props.domainName}`;
    const environment = { ...props.environment, ...(props.publicUrlVariable === undefined ? {} : { [props.publicUrlVariable]: this.publicUrl }) };
    if (props.cloudWatchAccount) this.api.deploymentStage.node.addDependency(props.cloudWatchAccount);
    // API Gateway writes error-level execution logs to a group it names and creates itself, without
    // retention and outside the stack; created here first, it is the stack's, with the same retention.
    const executionLogs = new LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.api.restApiId}/${props.stageName}`,
      retention: LOG_RETENTION,
    });
    this.api.deploymentStage.node.addDependency(executionLogs);
    addEnvelopedGatewayResponses(this.api, props.gatewayResponseHeaders);

    const placement = props.placement ?? underOwner;
    const functions = new Map<Route, RouteFunction>();
    /** Each route resource's first integration: the function that answers its preflight. */
    const preflights = new Map<string, LambdaIntegration>();
    for (const route of routes) {
      const fn = new RouteFunction(placement(this, route.handler), constructIdFor(route.handler), {
        handler: route.handler,
        description: `${route.method} ${route.path}`,
        data: props.data,
        access: route.table,
        environment,
      });
      // One invoke permission per route, for its own method and stage: the console's test-invoke
      // stage would double the permissions (each a resource of the stack's budget) for a feature
      // nobody should use against a production function.
      const integration = new LambdaIntegration(fn.function, { allowTestInvoke: false });
      this.api.root.resourceForPath(route.path).addMethod(route.method, integration);
      if (!preflights.has(route.path)) preflights.set(route.path, integration);
      functions.set(route, fn);
    }
    this.routeFunctions = functions;
    // Any function of a resource can answer its preflight: each lists the methods of the resource
    // (from the route table), not only its own. Its invoke permission is for OPTIONS on that path.
    if (props.preflightInFunctions) {
      for (const [path, integration] of preflights) this.api.root.resourceForPath(path).addMethod('OPTIONS', integration);
    }

    this.fallback = new RouteFunction(placement(this, FALLBACK_HANDLER), constructIdFor(FALLBACK_HANDLER), {
      handler: FALLBACK_HANDLER,
      description: 'Any path or method no route serves: 404 or 405 in the error envelope',
      data: props.data,
      // In front of the merchant API it checks the key and counts the request, as every REST route does
      // (functions/platform/not-found.ts); elsewhere it never touches the table.
      access: props.surfaces.includes('rest') ? 'read' : 'none',
      // Its 405 answers list only methods this API serves.
      environment: { ...environment, API_SURFACES: props.surfaces.join(',') },
    });
    // One invoke permission for the whole API instead of one per method: the fallback sits on every
    // resource, and per-method statements would outgrow Lambda's 20 KB resource-policy limit.
    const fallback = new LambdaIntegration(this.fallback.function, { scopePermissionToMethod: false });
    this.api.root.addMethod('ANY', fallback);
    // Every resource, not only those with methods: a resource with no method matching would
    // otherwise answer 403 "Missing Authentication Token" instead of reaching the fallback.
    for (const path of resourcePaths(routes)) this.api.root.resourceForPath(path).addMethod('ANY', fallback);
    this.api.root.addProxy({ defaultIntegration: fallback, anyMethod: true });

    acknowledgeApiFindings(this);
  }
}

/** Findings that describe choices, not gaps; each reason says where the control lives instead. */
function acknowledgeApiFindings(scope: Construct): void {
  const validations = Validations.of(scope);
  validations.acknowledge({
    id: 'AwsSolutions-APIG2',
    reason:
      "Requests are validated in each function by the endpoint's zod schema, which answers 400/422 with the offending param in the service's error envelope; API Gateway's validator would answer in its own format and duplicate the schemas.",
  });
  validations.acknowledge({
    id: 'AwsSolutions-APIG4',
    reason:
      'Authentication happens in the functions: merchant API keys (hashed, scoped, per environment) in the REST middleware, processor signatures on webhooks, session tokens on the edge API. The fallback is deliberately public: it only answers 404/405.',
  });
  validations.acknowledge({
    id: 'AwsSolutions-COG4',
    reason: 'Callers are merchant servers with API keys, payment processors and end customers with session tokens, none of whom have Cognito identities.',
  });
  validations.acknowledge({
    id: 'AwsSolutions-APIG3',
    reason:
      "No WAF yet: per-merchant rate limiting is enforced in the functions, and AWS's managed rule groups block request bodies over 8 KB, which processor webhooks exceed. To be revisited with the deployable stack (issue 9) using rules tuned for webhooks.",
  });
}
