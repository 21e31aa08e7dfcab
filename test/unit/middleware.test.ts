import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { withMiddleware, type Middleware } from '../../shared/http/middleware.ts';

const event = { httpMethod: 'GET', path: '/v1/things' } as APIGatewayProxyEvent;
const context = {} as Context;
const answer = (body: string): APIGatewayProxyResult => ({ statusCode: 200, body });

/** A layer that records each of its steps as `<name>.<step>`, in the order they ran. */
function recording(name: string, calls: string[], overrides: Middleware<Context> = {}): Middleware<Context> {
  return {
    before: (request) => {
      calls.push(`${name}.before`);
      return overrides.before?.(request);
    },
    after: (request) => {
      calls.push(`${name}.after`);
      return overrides.after?.(request);
    },
    onError: (request) => {
      calls.push(`${name}.onError`);
      return overrides.onError?.(request);
    },
  };
}

describe('the HTTP middleware runner', () => {
  it('runs every before in order, the handler, then every after in reverse order', async () => {
    // Prepare
    const calls: string[] = [];
    const handler = withMiddleware(
      async () => {
        calls.push('handler');
        return answer('done');
      },
      [recording('outer', calls), recording('inner', calls)],
    );

    // Act
    const result = await handler(event, context);

    // Assess
    expect(result).toEqual(answer('done'));
    expect(calls).toEqual(['outer.before', 'inner.before', 'handler', 'inner.after', 'outer.after']);
  });

  it('lets a before answer in place of the handler, skipping the rest of the chain and every after', async () => {
    // Prepare
    const calls: string[] = [];
    const handler = withMiddleware(
      async () => {
        calls.push('handler');
        return answer('never');
      },
      [recording('outer', calls, { before: () => answer('preflight') }), recording('inner', calls)],
    );

    // Act
    const result = await handler(event, context);

    // Assess
    expect(result).toEqual(answer('preflight'));
    expect(calls).toEqual(['outer.before']);
  });

  it('hands an error from anywhere to the onError steps, innermost first, until one sets the response', async () => {
    // Prepare
    const calls: string[] = [];
    const enveloped = (request: { error?: unknown; response?: APIGatewayProxyResult }) => {
      request.response = { statusCode: 500, body: (request.error as Error).message };
    };
    const handler = withMiddleware(
      async () => answer('done'),
      [
        recording('envelope', calls, { onError: enveloped }),
        recording('inner', calls, {
          after: () => {
            throw new Error('after failed');
          },
        }),
      ],
    );

    // Act
    const result = await handler(event, context);

    // Assess
    expect(result).toEqual({ statusCode: 500, body: 'after failed' });
    expect(calls).toEqual(['envelope.before', 'inner.before', 'inner.after', 'inner.onError', 'envelope.onError']);
  });

  it('rethrows the error when no onError step answers', async () => {
    // Prepare
    const handler = withMiddleware(async () => {
      throw new Error('unhandled');
    }, [recording('only', [])]);

    // Act
    const outcome = handler(event, context);

    // Assess
    await expect(outcome).rejects.toThrow('unhandled');
  });
});
