/**
 * The one invocation event each function gets in the cold-start bench, as its trigger would send it:
 * API Gateway's proxy event for routes (with the fixture's admin key and ids), Scheduler's job event
 * (a recurring schedule's scheduled time), an SQS batch, a DynamoDB stream batch. Writes send an empty JSON object: the request goes through
 * authentication, the rate limit and validation, and a 400 is a fair first request for a cold start.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { toLambdaEvent } from '../bin/local/lambda-event.ts';
import type { Route } from '../shared/routes.ts';
import type { LambdaEntry } from './entries.ts';
import type { BenchFixture } from './fixture.ts';

const WRITES = new Set(['POST', 'PUT', 'PATCH']);

/** Deleting and revoking routes act on the fixture's spare records. */
const isDestructive = (route: Route) => route.method === 'DELETE' || route.path.endsWith('/revoke');

/** '/v1/payments/{id}/retry' with the fixture's payment id; each parameter is looked up by the literal segment before it. */
export function pathParametersFor(route: Route, values: BenchFixture['pathValues']): Record<string, string> {
  const parameters: Record<string, string> = {};
  let literal = '';
  for (const segment of route.path.split('/')) {
    const name = /^\{(\w+)\}$/.exec(segment)?.[1];
    if (!name) {
      literal = segment;
      continue;
    }
    const key = `${literal}:${name}`;
    const value = (isDestructive(route) ? values[`spare:${key}`] : undefined) ?? values[key];
    if (value === undefined) throw new Error(`bench/fixture.ts seeds no value for ${key} (${route.method} ${route.path})`);
    parameters[name] = value;
  }
  return parameters;
}

function httpEvent(method: string, resource: string, parameters: Record<string, string>, headers: Record<string, string>): APIGatewayProxyEvent {
  const path = resource.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(parameters[name]!));
  const body = WRITES.has(method) ? '{}' : '';
  return toLambdaEvent(
    { method, path, query: new URLSearchParams(), headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, body: Buffer.from(body), sourceIp: '203.0.113.10' },
    resource,
    parameters,
  );
}

/** The floor's request: a payment id in the path. */
export function floorEvent(fixture: BenchFixture): APIGatewayProxyEvent {
  return httpEvent('GET', '/v1/payments/{id}', { id: fixture.floorId }, {});
}

export function coldStartEvent(entry: LambdaEntry, fixture: BenchFixture): unknown {
  switch (entry.kind) {
    case 'route': {
      const headers: Record<string, string> = entry.route.surface === 'rest' ? { authorization: `Bearer ${fixture.adminKey}` } : {};
      return httpEvent(entry.route.method, entry.route.path, pathParametersFor(entry.route, fixture.pathValues), headers);
    }
    case 'fallback':
      // A merchant's mistyped URL: under /v1 the key is checked and the request counted before the 404.
      return {
        ...httpEvent('GET', '/{proxy+}', {}, { authorization: `Bearer ${fixture.adminKey}` }),
        path: '/v1/no-such-thing',
        pathParameters: { proxy: 'v1/no-such-thing' },
      };
    case 'job':
      // A kind the fixture does not seed still gets its cold start; its handler refuses the empty payload (shown as its answer).
      return fixture.jobs[entry.job] ?? { jobId: `bench-${entry.job}`, kind: entry.job, tenant: fixture.tenant, payload: {} };
    case 'recurring':
      return { scheduled_time: new Date().toISOString() };
    case 'worker':
      return { Records: [fixture.queueRecord] };
    case 'stream':
      return { Records: [fixture.streamRecord] };
  }
}
