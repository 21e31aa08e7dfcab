import { dispatch } from '../../bin/local/dispatch.ts';
import { localRuntime } from '../../bin/local/local-runtime.ts';
import { runtime } from '../../shared/runtime.ts';
import { onboardMerchant, type MerchantTerms } from '../../shared/domain/access/merchant-onboarding.ts';

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  rawBody?: string;
  /** Pairs, to send a parameter more than once. */
  query?: Record<string, string> | [string, string][];
  headers?: Record<string, string>;
  sourceIp?: string;
}

/** Calls a route in process through the same dispatch the local server uses: real handler, real middleware, real engine. */
export async function call(method: string, path: string, options: CallOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  const text = options.rawBody ?? (options.body === undefined ? '' : JSON.stringify(options.body));
  if (text !== '' && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
    headers['content-type'] = 'application/json';
  }
  const response = await dispatch({
    method,
    path,
    query: new URLSearchParams(options.query),
    headers,
    body: Buffer.from(text),
    sourceIp: options.sourceIp ?? '203.0.113.10',
  });
  const raw = response.body.toString('utf8');
  return { status: response.status, headers: response.headers, body: raw === '' ? undefined : JSON.parse(raw) };
}

export async function newMerchant(terms: MerchantTerms = {}) {
  const { merchant, keys } = await onboardMerchant({ plan: 'enterprise', ...terms }, runtime.clock.now());
  return { merchantId: merchant.id, keys: keys as Record<'test_admin' | 'test_read' | 'test_write' | 'live_admin' | 'pub', string> };
}

export function advanceClock(seconds: number): Date {
  return localRuntime().clock.advance(seconds);
}

export { runDueJobs } from '../../bin/local/job-runner.ts';
export { drainEvents } from '../../bin/local/event-runner.ts';
