import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_STREAM_HANDLER } from '../../lib/event-stream.ts';
import { constructIdFor } from '../../lib/route-function.ts';
import { JOBS, RECURRING_JOBS } from '../../shared/jobs.ts';
import { FALLBACK_HANDLER, ROUTES, type Route } from '../../shared/routes.ts';
import { GLOBAL_INDEXES, projectionOf, TABLE_KEYS, TTL_ATTRIBUTE } from '../../shared/store/table-schema.ts';
import { areaOf } from '../../lib/function-stacks.ts';
import { WORKERS } from '../../lib/workers.ts';
import { findDependencyCycle, isDeploymentHelper, list, synthesize, type Resource, type Statement } from './template.ts';

/** CloudFormation refuses more than 500 resources per stack; the rest is room for routes to come. */
const RESOURCE_BUDGET = 450;

let built: ReturnType<typeof synthesize>;
let resources: Record<string, Resource>;

beforeAll(() => {
  built = synthesize();
  resources = built.template.toJSON().Resources;
});

function ofType(type: string): [string, Resource][] {
  return Object.entries(resources).filter(([, resource]) => resource.Type === type);
}

/** Functions by their `handler` tag, which RouteFunction sets to the route's handler module. */
function functionsFor(handler: string): [string, Resource][] {
  return ofType('AWS::Lambda::Function').filter(([, fn]) =>
    (fn.Properties.Tags ?? []).some((tag: { Key: string; Value: string }) => tag.Key === 'handler' && tag.Value === handler),
  );
}

function roleLogicalId(fn: Resource): string {
  return fn.Properties.Role['Fn::GetAtt'][0];
}

function statementsOfRole(roleId: string): Statement[] {
  return ofType('AWS::IAM::Policy')
    .filter(([, policy]) => policy.Properties.Roles.some((role: { Ref: string }) => role.Ref === roleId))
    .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

function statementsFor(route: Route): Statement[] {
  const [[, fn]] = functionsFor(route.handler) as [[string, Resource]];
  return statementsOfRole(roleLogicalId(fn));
}

const allows = (statements: Statement[], action: string) =>
  statements.filter((statement) => statement.Effect === 'Allow' && list(statement.Action).includes(action));

describe('stacks', () => {
  it(`keeps the parent and every nested stack under ${RESOURCE_BUDGET} resources`, () => {
    // Act
    const counts = built.templates.map(({ stack, resources: own }) => ({ stack: stack.node.path, resources: Object.keys(own).length }));
    // Assess
    console.info(
      `Resources per stack (budget ${RESOURCE_BUDGET}, limit 500):\n${counts.map((count) => `  ${count.stack}: ${count.resources}`).join('\n')}\n  total: ${counts.reduce((sum, count) => sum + count.resources, 0)}`,
    );
    expect(counts.length).toBeGreaterThan(1);
    for (const count of counts) expect(count.resources, count.stack).toBeLessThan(RESOURCE_BUDGET);
  });

  it("keeps the APIs, their methods and permissions, and the table in the parent, and each function in its area's nested stack", () => {
    // Prepare
    const [parent, ...nested] = built.templates;
    const typesIn = (own: Record<string, Resource>) => new Set(Object.values(own).map((resource) => resource.Type));
    // Assess
    const parentTypes = typesIn(parent!.resources);
    for (const type of ['AWS::ApiGateway::RestApi', 'AWS::ApiGateway::Method', 'AWS::Lambda::Permission', 'AWS::DynamoDB::Table', 'AWS::SNS::Topic']) {
      expect(parentTypes.has(type), type).toBe(true);
    }
    const parentFunctions = Object.entries(parent!.resources).filter(([id, resource]) => resource.Type === 'AWS::Lambda::Function' && !isDeploymentHelper(id));
    expect(parentFunctions).toEqual([]);
    for (const { stack, resources: own } of nested) {
      expect(typesIn(own).has('AWS::ApiGateway::Method'), stack.node.path).toBe(false);
      for (const fn of Object.values(own).filter((resource) => resource.Type === 'AWS::Lambda::Function')) {
        const handler = fn.Properties.Tags.find((tag: { Key: string }) => tag.Key === 'handler').Value as string;
        expect(areaOf(handler), handler).toBe(stack.node.id);
      }
    }
  });

  it('has no dependency cycles within any stack, nor between the parent and its nested stacks', () => {
    // Each nested stack deploys as one resource of the parent, so the parent's template holds the
    // references between stacks (parameters in, outputs out).
    for (const { stack, resources: own } of built.templates) expect(findDependencyCycle(own), stack.node.path).toBeUndefined();
  });
});

describe('functions', () => {
  it('has exactly one function per route, per job kind, per recurring job and per worker, one event stream consumer, plus one fallback per API', () => {
    // Assess
    for (const route of ROUTES) expect(functionsFor(route.handler), route.handler).toHaveLength(1);
    for (const job of [...JOBS, ...RECURRING_JOBS]) expect(functionsFor(job.handler), job.handler).toHaveLength(1);
    for (const worker of WORKERS) expect(functionsFor(worker.handler), worker.handler).toHaveLength(1);
    expect(functionsFor(EVENT_STREAM_HANDLER)).toHaveLength(1);
    expect(functionsFor(FALLBACK_HANDLER)).toHaveLength(2);
    expect(ofType('AWS::Lambda::Function')).toHaveLength(ROUTES.length + JOBS.length + RECURRING_JOBS.length + WORKERS.length + 1 + 2);
  });

  it('names each function after its handler and describes its route', () => {
    for (const route of ROUTES) {
      const [[logicalId, fn]] = functionsFor(route.handler) as [[string, Resource]];
      expect(logicalId).toContain(constructIdFor(route.handler));
      expect(fn.Properties.Description).toBe(`${route.method} ${route.path}`);
    }
  });

  it('runs every function on nodejs22.x, arm64, traced, with its own retained log group and TABLE_NAME', () => {
    // Jobs, workers and the stream consumer run behind no gateway, so they are not held to its 29 s.
    const jobIds = new Set(
      [...[...JOBS, ...RECURRING_JOBS].map((job) => job.handler), ...WORKERS.map((worker) => worker.handler), EVENT_STREAM_HANDLER].flatMap((handler) =>
        functionsFor(handler).map(([id]) => id),
      ),
    );
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      expect(fn.Properties.Runtime, id).toBe('nodejs22.x');
      expect(fn.Properties.Architectures, id).toEqual(['arm64']);
      expect(fn.Properties.TracingConfig, id).toEqual({ Mode: 'Active' });
      expect(fn.Properties.MemorySize, id).toBe(512);
      expect(fn.Properties.Timeout, id).toBe(jobIds.has(id) ? 60 : 29);
      expect(fn.Properties.Environment.Variables).toMatchObject({ TABLE_NAME: { Ref: expect.any(String) } });
      // Source maps are read by the log when it needs them, not by Node at every cold start (docs/decisions.md).
      expect(fn.Properties.Environment.Variables.NODE_OPTIONS, id).toBeUndefined();
      const logGroupId = fn.Properties.LoggingConfig.LogGroup.Ref;
      expect(resources[logGroupId]?.Type, id).toBe('AWS::Logs::LogGroup');
      expect(resources[logGroupId]?.Properties.RetentionInDays, id).toBeGreaterThan(0);
    }
  });

  it('attaches no managed policies to function roles', () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      expect(resources[roleLogicalId(fn)]?.Properties.ManagedPolicyArns, id).toBeUndefined();
    }
  });
});

describe('table', () => {
  it('is keyed, indexed and expired as table-schema.ts says, on demand with point-in-time recovery and a stream of new images', () => {
    built.template.resourceCountIs('AWS::DynamoDB::Table', 1);
    built.template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: {
        KeySchema: [
          { AttributeName: TABLE_KEYS.partition, KeyType: 'HASH' },
          { AttributeName: TABLE_KEYS.sort, KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
        SSESpecification: { SSEEnabled: true },
        StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
        DeletionProtectionEnabled: true,
        GlobalSecondaryIndexes: GLOBAL_INDEXES.map((index) => ({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partition, KeyType: 'HASH' },
            { AttributeName: index.sort, KeyType: 'RANGE' },
          ],
          Projection: projectionOf(index.projection),
        })),
      },
    });
  });
});

describe('least privilege', () => {
  const XRAY = new Set(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']);
  const SCHEDULES = new Set(['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule']);

  it('has no wildcard actions; Resource "*" only for X-Ray (and ListStreams for the stream consumer), and a wildcard only over the schedules of the stack\'s group', () => {
    const policies = ofType('AWS::IAM::Policy');
    expect(policies.length).toBeGreaterThan(0);
    const groupSchedules = built.stack.resolve(built.stack.scheduling.scheduleArns);
    const [[, consumer]] = functionsFor(EVENT_STREAM_HANDLER) as [[string, Resource]];
    for (const [id, policy] of policies) {
      // ListStreams supports no resource-level permissions; Lambda wants it of a stream mapping's role.
      const onAnything = policy.Properties.Roles.some((role: { Ref: string }) => role.Ref === roleLogicalId(consumer))
        ? new Set([...XRAY, 'dynamodb:ListStreams'])
        : XRAY;
      for (const statement of policy.Properties.PolicyDocument.Statement as Statement[]) {
        for (const action of list(statement.Action)) expect(action, id).not.toContain('*');
        const resourcesOf = list(statement.Resource as unknown);
        if (!resourcesOf.some((resource) => JSON.stringify(resource).includes('*'))) continue;
        if (list(statement.Action).every((action) => SCHEDULES.has(action))) {
          expect(resourcesOf, id).toEqual([groupSchedules]);
          continue;
        }
        expect(resourcesOf, id).toEqual(['*']);
        expect(list(statement.Action).filter((action) => !onAnything.has(action)), id).toEqual([]);
      }
    }
  });

  const reads = ROUTES.filter((route) => route.table === 'read');
  const writes = ROUTES.filter((route) => route.table === 'write');

  /** Reads, and writes nothing but the merchant's rate-limit window. */
  function expectReadOnly(statements: Statement[], name: string) {
    for (const action of ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem']) {
      expect(allows(statements, action), `${name} ${action}`).toEqual([]);
    }
    const updates = allows(statements, 'dynamodb:UpdateItem');
    expect(updates.length, name).toBeGreaterThan(0);
    for (const update of updates) {
      expect(update.Condition, name).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['RATE#*'] } });
    }
    expect(allows(statements, 'dynamodb:GetItem').length, name).toBeGreaterThan(0);
  }

  it.runIf(reads.length > 0)('lets read routes write nothing but their rate-limit log', () => {
    for (const route of reads) expectReadOnly(statementsFor(route), route.handler);
  });

  it.runIf(writes.length > 0)('lets write routes put, update and delete items', () => {
    for (const route of writes) {
      const statements = statementsFor(route);
      for (const action of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']) {
        const granted = allows(statements, action);
        expect(granted.length, `${route.handler} ${action}`).toBeGreaterThan(0);
        expect(granted.every((statement) => statement.Condition === undefined)).toBe(true);
      }
    }
  });

  it("lets the merchant API's fallback read keys and count requests like a read route, and the edge API's touch no table", () => {
    const bySurfaces = new Map(functionsFor(FALLBACK_HANDLER).map(([, fn]) => [fn.Properties.Environment.Variables.API_SURFACES as string, fn]));
    expect([...bySurfaces.keys()].sort()).toEqual(['edge', 'rest,webhook']);
    expectReadOnly(statementsOfRole(roleLogicalId(bySurfaces.get('rest,webhook')!)), 'merchant API fallback');
    const edgeActions = statementsOfRole(roleLogicalId(bySurfaces.get('edge')!)).flatMap((statement) => list(statement.Action));
    expect(edgeActions.filter((action) => action.startsWith('dynamodb:'))).toEqual([]);
  });
});

describe('processor credentials key', () => {
  const OPENING = ['card-updates/page', 'card-updates/stripe-return', 'card-updates/submit', 'jobs/payment-retry', 'streams/events', 'webhooks/braintree', 'webhooks/generic', 'webhooks/stripe'];
  const SEALING = ['processors/connect'];

  function keyOf(): [string, Resource] {
    const keys = ofType('AWS::KMS::Key');
    expect(keys).toHaveLength(1);
    return keys[0]!;
  }

  /** Handlers whose role is allowed a KMS action, and the statements allowing it. */
  function grantsOf(action: string) {
    return ofType('AWS::Lambda::Function').flatMap(([, fn]) => {
      const granted = statementsOfRole(roleLogicalId(fn)).filter((statement) => list(statement.Action).some((each) => each === action || each === 'kms:*'));
      const handler = fn.Properties.Tags.find((tag: { Key: string }) => tag.Key === 'handler').Value as string;
      return granted.length > 0 ? [{ handler, fn, granted }] : [];
    });
  }

  it('is customer managed, rotated by KMS, kept when the stack goes (as the table is), and named to the functions by CREDENTIALS_KEY_ID', () => {
    // Prepare
    const [keyId, key] = keyOf();
    const keyArn = { 'Fn::GetAtt': [keyId, 'Arn'] };
    // Assess
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.Properties.KeySpec ?? 'SYMMETRIC_DEFAULT').toBe('SYMMETRIC_DEFAULT');
    expect(key.DeletionPolicy).toBe('Retain');
    const named = ofType('AWS::Lambda::Function').filter(([, fn]) => fn.Properties.Environment.Variables.CREDENTIALS_KEY_ID !== undefined);
    expect(named.map(([, fn]) => fn.Properties.Tags.find((tag: { Key: string }) => tag.Key === 'handler').Value).sort()).toEqual([...OPENING, ...SEALING].sort());
    for (const [id, fn] of named) expect(fn.Properties.Environment.Variables.CREDENTIALS_KEY_ID, id).toEqual(keyArn);
  });

  it('lets only the functions that call processors or verify their webhooks decrypt, and only the connect route generate data keys, under the credentials context', () => {
    // Prepare
    const [keyId] = keyOf();
    const declared = [...ROUTES, ...JOBS].filter((entry) => entry.credentials === 'open').map((entry) => entry.handler);
    // Act
    const decrypting = grantsOf('kms:Decrypt');
    const sealing = grantsOf('kms:GenerateDataKey');
    // Assess: the declarations, the stream consumer (offer application), and nothing else
    expect(decrypting.map((grant) => grant.handler).sort()).toEqual([...declared, EVENT_STREAM_HANDLER].sort());
    expect(decrypting.map((grant) => grant.handler).sort()).toEqual(OPENING);
    expect(sealing.map((grant) => grant.handler)).toEqual(SEALING);
    for (const { handler, granted } of [...decrypting, ...sealing]) {
      for (const statement of granted) {
        expect(list(statement.Action), handler).toHaveLength(1);
        expect(statement.Resource, handler).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
        expect(statement.Condition, handler).toEqual({ StringEquals: { 'kms:EncryptionContext:purpose': 'processor-credentials' } });
      }
    }
    const kmsActions = ofType('AWS::IAM::Policy').flatMap(([, policy]) =>
      (policy.Properties.PolicyDocument.Statement as Statement[]).flatMap((statement) => list(statement.Action)).filter((action) => action.startsWith('kms:')),
    );
    expect([...new Set(kmsActions)].sort()).toEqual(['kms:Decrypt', 'kms:GenerateDataKey']);
  });

  it('denies Decrypt in the key policy to every principal but the roles tagged for opening credentials, which are exactly the decrypting functions\' roles', () => {
    // Prepare
    const [, key] = keyOf();
    const statements = key.Properties.KeyPolicy.Statement as (Statement & { Principal: unknown })[];
    const taggedRoles = ofType('AWS::IAM::Role')
      .filter(([, role]) => (role.Properties.Tags ?? []).some((tag: { Key: string; Value: string }) => tag.Key === 'processor-credentials' && tag.Value === 'open'))
      .map(([id]) => id);
    // Assess
    expect(statements.filter((statement) => statement.Effect === 'Deny')).toEqual([
      expect.objectContaining({
        Action: 'kms:Decrypt',
        Principal: { AWS: '*' },
        Resource: '*',
        Condition: { StringNotEquals: { 'aws:PrincipalTag/processor-credentials': 'open' } },
      }),
    ]);
    expect(taggedRoles.sort()).toEqual(grantsOf('kms:Decrypt').map(({ fn }) => roleLogicalId(fn)).sort());
  });
});

describe('APIs', () => {
  it('serves every route through a Lambda proxy integration of its own function', () => {
    for (const route of ROUTES) {
      const [[functionId]] = functionsFor(route.handler) as [[string, Resource]];
      built.template.hasResourceProperties('AWS::ApiGateway::Method', {
        HttpMethod: route.method,
        Integration: {
          Type: 'AWS_PROXY',
          Uri: { 'Fn::Join': ['', Match.arrayWith([{ 'Fn::GetAtt': [functionId, 'Arn'] }])] },
        },
      });
    }
  });

  it('lets API Gateway invoke each route function from its own method on the deployed stage only, and each fallback from its API', () => {
    // Prepare
    const permissions = ofType('AWS::Lambda::Permission').map(([, permission]) => permission.Properties);
    const of = (functionId: string) => permissions.filter((permission) => JSON.stringify(permission.FunctionName) === JSON.stringify({ 'Fn::GetAtt': [functionId, 'Arn'] }));
    // Assess
    for (const route of ROUTES) {
      const [[functionId]] = functionsFor(route.handler) as [[string, Resource]];
      const granted = of(functionId);
      const path = route.path.replace(/\{\w+\}/g, '*');
      // The first edge route function of a resource also answers its preflight (OPTIONS), under a permission of its own.
      const answersPreflight = route.surface === 'edge' && ROUTES.find((other) => other.surface === 'edge' && other.path === route.path) === route;
      const methods = answersPreflight ? [route.method, 'OPTIONS'] : [route.method];
      // No second permission for the console's test-invoke stage: each one is a resource of the parent stack.
      expect(granted, route.handler).toHaveLength(methods.length);
      const targets: unknown[] = [];
      for (const permission of granted) {
        expect(permission.Principal).toBe('apigateway.amazonaws.com');
        // …/<api id>/<deployed stage>/<method><path>: the stage is the API's Stage resource, not test-invoke-stage.
        const parts = permission.SourceArn['Fn::Join'][1] as unknown[];
        targets.push(parts.at(-1));
        expect(resources[(parts.at(-2) as { Ref: string }).Ref]?.Type, route.handler).toBe('AWS::ApiGateway::Stage');
        expect(JSON.stringify(parts), route.handler).not.toContain('test-invoke-stage');
      }
      expect(targets.toSorted(), route.handler).toEqual(methods.map((method) => `/${method}${path}`).toSorted());
    }
    for (const [functionId] of functionsFor(FALLBACK_HANDLER)) expect(of(functionId), functionId).toHaveLength(1);
  });

  it('sends anything unmatched to the fallback: ANY on /{proxy+}, on the root and on every route resource', () => {
    built.template.resourceCountIs('AWS::ApiGateway::RestApi', 2);
    const proxies = ofType('AWS::ApiGateway::Resource').filter(([, resource]) => resource.Properties.PathPart === '{proxy+}');
    expect(proxies).toHaveLength(2);
    const anyMethods = ofType('AWS::ApiGateway::Method').filter(([, method]) => method.Properties.HttpMethod === 'ANY');
    for (const [proxyId] of proxies) {
      expect(anyMethods.some(([, method]) => method.Properties.ResourceId.Ref === proxyId)).toBe(true);
    }
    const fallbackIds = functionsFor(FALLBACK_HANDLER).map(([id]) => id);
    for (const [, method] of anyMethods) {
      const target = JSON.stringify(method.Properties.Integration.Uri);
      expect(fallbackIds.some((id) => target.includes(`"${id}"`))).toBe(true);
    }
    // Every resource with a route also has an ANY, so a wrong method reaches the fallback (405).
    const routedResources = new Set(
      ofType('AWS::ApiGateway::Method')
        .filter(([, method]) => method.Properties.HttpMethod !== 'ANY' && method.Properties.HttpMethod !== 'OPTIONS')
        .map(([, method]) => JSON.stringify(method.Properties.ResourceId)),
    );
    const withAny = new Set(anyMethods.map(([, method]) => JSON.stringify(method.Properties.ResourceId)));
    for (const resource of routedResources) expect(withAny.has(resource)).toBe(true);
  });

  it("rewrites the gateway's own errors into the error envelope", () => {
    const types = ['DEFAULT_4XX', 'DEFAULT_5XX', 'MISSING_AUTHENTICATION_TOKEN', 'THROTTLED', 'REQUEST_TOO_LARGE'];
    for (const type of types) {
      const responses = ofType('AWS::ApiGateway::GatewayResponse').filter(([, response]) => response.Properties.ResponseType === type);
      expect(responses, type).toHaveLength(2);
      for (const [, response] of responses) {
        const template: string = response.Properties.ResponseTemplates['application/json'];
        expect(template).toMatch(/^\{"error":\{"code":"[a-z_]+","message":.+,"request_id":"\$context\.requestId"\}\}$/);
      }
    }
    built.template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', { ResponseType: 'MISSING_AUTHENTICATION_TOKEN', StatusCode: '404' });
  });

  it('logs every request as JSON and traces each stage, after the account logging role is set', () => {
    const stages = ofType('AWS::ApiGateway::Stage');
    expect(stages).toHaveLength(2);
    const [[accountId]] = ofType('AWS::ApiGateway::Account') as [[string, Resource]];
    for (const [id, stage] of stages) {
      expect(stage.Properties.StageName, id).toBe('prod');
      expect(stage.Properties.TracingEnabled, id).toBe(true);
      expect(JSON.parse(stage.Properties.AccessLogSetting.Format), id).toMatchObject({ request_id: '$context.requestId' });
      expect(stage.DependsOn, id).toContain(accountId);
    }
  });

  it('throttles each stage, keeps no path (the edge path holds the session token) and no subscriber address in access logs, and owns the execution logs with a retention', () => {
    const stages = ofType('AWS::ApiGateway::Stage');
    const isEdge = (stage: Resource) => JSON.stringify(stage.Properties.RestApiId).includes('Edge');
    for (const [id, stage] of stages) {
      const format = JSON.parse(stage.Properties.AccessLogSetting.Format);
      expect(format, id).not.toHaveProperty('path');
      expect(format, id).toMatchObject({ resource: '$context.resourcePath' });
      if (isEdge(stage)) expect(format, id).not.toHaveProperty('ip');
      else expect(format, id).toMatchObject({ ip: '$context.identity.sourceIp' });
      const [settings] = stage.Properties.MethodSettings;
      expect(settings, id).toMatchObject(isEdge(stage) ? { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 } : { ThrottlingRateLimit: 500, ThrottlingBurstLimit: 1000 });
      const executionLogs = ofType('AWS::Logs::LogGroup').filter(([logId]) => (stage.DependsOn as string[]).includes(logId));
      expect(executionLogs, id).toHaveLength(1);
      expect(JSON.stringify(executionLogs[0]![1].Properties.LogGroupName), id).toContain('API-Gateway-Execution-Logs_');
      expect(executionLogs[0]![1].Properties.RetentionInDays, id).toBe(30);
    }
  });

  it('routes CORS preflight on each edge route resource to that route\'s function, which decides the origins, whatever corsOrigins says', () => {
    const preflights = (template: Template) =>
      Object.values(template.findResources('AWS::ApiGateway::Method', { Properties: { HttpMethod: 'OPTIONS' } }));
    const apiOf = (method: Resource) => JSON.stringify(method.Properties.RestApiId);
    // Prepare
    const origin = 'https://pay.example.com';
    const withOrigin = synthesize({ corsOrigins: origin });
    const edgeRoutes = ROUTES.filter((route) => route.surface === 'edge');
    for (const { stack, template } of [built, withOrigin]) {
      const edgeApi = JSON.stringify(stack.resolve(stack.edge.api.restApiId));
      const flat = template.toJSON().Resources as Record<string, Resource>;
      const edgePreflights = preflights(template) as Resource[];
      // Assess: only on the edge API, one per route resource, no mock (the origins are the function's call)
      expect(edgePreflights.every((method) => apiOf(method) === edgeApi)).toBe(true);
      expect(edgePreflights).toHaveLength(new Set(edgeRoutes.map((route) => route.path)).size);
      expect(JSON.stringify(edgePreflights)).not.toContain(origin);
      for (const method of edgePreflights) {
        expect(method.Properties.Integration.Type).toBe('AWS_PROXY');
        const resourcePath = (id: string): string => {
          const resource = flat[id]!;
          const parent = resource.Properties.ParentId;
          const prefix = parent.Ref ? resourcePath(parent.Ref) : '';
          return `${prefix}/${resource.Properties.PathPart}`;
        };
        const path = resourcePath(method.Properties.ResourceId.Ref);
        const served = edgeRoutes.filter((route) => route.path === path);
        expect(served.length, path).toBeGreaterThan(0);
        const target = JSON.stringify(method.Properties.Integration.Uri);
        const routeFunctionIds = served.flatMap((route) => (functionsFor(route.handler) as [string, Resource][]).map(([id]) => id));
        expect(routeFunctionIds.some((id) => target.includes(`"${id}"`)), path).toBe(true);
      }
      // The functions read the configured origins, for every merchant.
      for (const route of edgeRoutes) {
        const fn = Object.values(flat).find(
          (resource) =>
            resource.Type === 'AWS::Lambda::Function' &&
            resource.Properties.Tags.some((tag: { Key: string; Value: string }) => tag.Key === 'handler' && tag.Value === route.handler),
        )!;
        expect(fn.Properties.Environment.Variables.CORS_ORIGINS, route.handler).toBe(stack === built.stack ? '' : origin);
      }
    }
  });

  it("lets a browser read the edge API's gateway errors when a single origin is allowed", () => {
    // Prepare
    const origin = 'https://pay.example.com';
    const { stack, template } = synthesize({ corsOrigins: origin });
    const edgeApi = stack.resolve(stack.edge.api.restApiId);
    // Assess
    const responses = Object.values(template.findResources('AWS::ApiGateway::GatewayResponse'));
    const edge = responses.filter((response) => JSON.stringify(response.Properties.RestApiId) === JSON.stringify(edgeApi));
    expect(edge.length).toBeGreaterThan(0);
    for (const response of responses) {
      const allowOrigin = response.Properties.ResponseParameters['gatewayresponse.header.Access-Control-Allow-Origin'];
      expect(allowOrigin).toBe(edge.includes(response) ? `'${origin}'` : undefined);
    }
  });
});

describe('cdk-nag', () => {
  it('reports no unacknowledged AwsSolutions findings', () => {
    // Act
    const report = new AwsSolutionsChecks(built.app).validateScope(built.stack);
    // Assess
    const findings = report.violations.map((violation) => ({
      rule: violation.ruleName,
      severity: violation.severity,
      resources: violation.violatingResources.map((resource) => resource.constructPath),
    }));
    expect(findings).toEqual([]);
  });
});
