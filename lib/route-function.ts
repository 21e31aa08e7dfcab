import { fileURLToPath } from 'node:url';
import { Duration, Tags, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Data, TableAccess } from './data.ts';

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Long enough to investigate an incident reported a few weeks late; older lines only cost money. */
export const LOG_RETENTION = RetentionDays.ONE_MONTH;

/**
 * The bundle is ESM, but some dependencies (the AWS SDK's CommonJS parts) call `require`, which ESM
 * does not define; this gives them one. The alias avoids clashing with a bundled `createRequire`.
 */
const REQUIRE_SHIM = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

export interface RouteFunctionProps {
  /** Handler module under functions/, without extension (as in the route table). */
  handler: string;
  /** Shown in the console, e.g. the route's `GET /v1/auth/me`. */
  description: string;
  data: Data;
  access: TableAccess;
  environment?: Record<string, string>;
}

/** 'api-keys/create' → 'ApiKeysCreate': a stable construct id, so logical ids follow the handler. */
export function constructIdFor(handler: string): string {
  return handler
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

/**
 * One Lambda function for one handler module, with everything that should be the same for all of
 * them fixed here: runtime, architecture, bundling, its own log group, tracing, and a role that starts
 * empty and gains only its log group, X-Ray, and the table access the route declares.
 */
export class RouteFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: RouteFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', { retention: LOG_RETENTION });
    // An explicit role instead of the default one, which would attach AWSLambdaBasicExecutionRole
    // (CreateLogGroup and PutLogEvents on every log group in the account).
    this.role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: `${PROJECT_ROOT}functions/${props.handler}.ts`,
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: 512,
      // API Gateway gives up at 29 s; running longer would only do work nobody receives.
      timeout: Duration.seconds(29),
      role: this.role,
      logGroup: this.logGroup,
      tracing: Tracing.ACTIVE,
      environment: {
        TABLE_NAME: props.data.table.tableName,
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node22',
        mainFields: ['module', 'main'],
        minify: true,
        sourceMap: true,
        // Stack traces need the mappings only; leaving sources out keeps the package small.
        sourcesContent: false,
        // Bundle the SDK instead of using the runtime's copy: the versions we test are the ones we run.
        bundleAwsSDK: true,
        banner: REQUIRE_SHIM,
      },
    });
    Tags.of(this.function).add('handler', props.handler);
    props.data.grant(this.role, props.access);

    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Active tracing needs xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions: X-Ray requires Resource "*".',
    });
    Validations.of(this.function).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'Pinned to nodejs22.x on purpose: the code is built (target node22) and tested on Node 20/22; moving to a newer runtime is a deliberate, tested upgrade rather than a side effect of a library bump.',
    });
  }
}
