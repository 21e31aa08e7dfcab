import { createHmac, randomBytes } from 'node:crypto';
import { call } from './api.ts';

/** A valid cancel flow definition: survey, discount offer, confirm (steps overridable). */
export function flowBody(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Retention flow',
    steps: [
      {
        step_type: 'survey',
        config: {
          question: 'Why are you leaving?',
          reasons: [
            { id: 'too_expensive', label: 'Too expensive', sub_reasons: [{ id: 'budget', label: 'Budget cut' }] },
            { id: 'missing_features', label: 'Missing features', free_text: true },
          ],
        },
      },
      { step_type: 'offer', config: { offer_type: 'discount', headline: 'Half price for 3 months', percent_off: 50, duration_months: 3 } },
      { step_type: 'confirm', config: { headline: 'Cancel for good?' } },
    ],
    ...overrides,
  };
}

/** Creates a flow through the API and activates it; returns the flow's id. */
export async function activeFlow(writeKey: string, body: Record<string, unknown> = flowBody()): Promise<string> {
  const created = await call('POST', '/v1/cancel-flows', { key: writeKey, body });
  if (created.status !== 201) throw new Error(`create cancel flow failed: ${JSON.stringify(created.body)}`);
  const activated = await call('POST', `/v1/cancel-flows/${created.body.data.id}/activate`, { key: writeKey });
  if (activated.status !== 200) throw new Error(`activate cancel flow failed: ${JSON.stringify(activated.body)}`);
  return created.body.data.id as string;
}

export interface StartedSession {
  token: string;
  sessionId: string;
  body: any;
}

/**
 * A client address of its own for each start (IPv6 documentation range): starts are limited per
 * address across merchants, and every test file shares one table.
 */
export const freshClientIp = (): string => `2001:db8::${randomBytes(6).toString('hex').match(/.{4}/g)!.join(':')}`;

/** What the merchant's server sends as auth_hash (README, "Signing the start"), written independently of the implementation. */
export const authHashFor = (secret: string, customerId: string, subscriptionId: string): string =>
  createHmac('sha256', secret).update(`${customerId}:${subscriptionId}`).digest('hex');

/** The tenant's cancel signing secret, read through the API as a merchant would (admin key of that environment). */
export async function signingSecret(adminKey: string): Promise<string> {
  const response = await call('GET', '/v1/cancel-flows/signing-secret', { key: adminKey });
  if (response.status !== 200) throw new Error(`reading the signing secret failed: ${JSON.stringify(response.body)}`);
  return response.body.data.secret as string;
}

export async function startSession(
  merchantId: string,
  ids: { customer?: string; subscription?: string; environment?: 'test' | 'live'; origin?: string; authHash?: string } = {},
): Promise<StartedSession> {
  const response = await call('POST', '/api/cancel-session/start', {
    body: {
      merchant_id: merchantId,
      customer_id: ids.customer ?? 'cus_unknown_1',
      subscription_id: ids.subscription ?? 'sub_unknown_1',
      environment: ids.environment ?? 'test',
      ...(ids.authHash === undefined ? {} : { auth_hash: ids.authHash }),
    },
    headers: ids.origin ? { origin: ids.origin } : {},
    sourceIp: freshClientIp(),
  });
  if (response.status !== 201) throw new Error(`start failed: ${response.status} ${JSON.stringify(response.body)}`);
  return { token: response.body.token, sessionId: response.body.session.sessionId, body: response.body };
}

export const advance = (token: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  call('POST', `/api/cancel-session/${token}/advance`, { body, headers });

export const complete = (token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call('POST', `/api/cancel-session/${token}/complete`, { body, headers });

export const getSession = (token: string, headers: Record<string, string> = {}) => call('GET', `/api/cancel-session/${token}`, { headers });

/** An advance body whose response_json carries the given object. */
export const answer = (value: unknown, stepType?: string) => ({ response_json: JSON.stringify(value), ...(stepType ? { step_type: stepType } : {}) });
