import { afterAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../shared/openapi/operations.ts';
import { matchRoute, ROUTES } from '../../shared/routes.ts';
import { dispatch } from '../../bin/local/dispatch.ts';
import { updatePage } from '../../shared/composition/update-page.ts';
import { issueUpdateLink } from '../../shared/domain/card-updates/update-links.ts';
import { runtime } from '../../shared/runtime.ts';
import { call, drainEvents, newMerchant, type ApiResponse } from '../support/api.ts';
import { postBraintreeFailure } from '../support/braintree-events.ts';
import { answer, authHashFor, flowBody } from '../support/cancel-flows.ts';
import { stripeChargeFailure } from '../support/stripe-events.ts';
import { BRAINTREE_CREDENTIALS, connect, GENERIC_SECRET, genericFailure, postGeneric, postStripe, STRIPE_SECRET } from '../support/webhooks.ts';

/**
 * Every route answers what the API description says: each response below, real data through the
 * real handlers, is parsed with the documented success schema (strict: an undocumented field fails).
 */
const covered = new Set<string>();

function expectDocumented(method: string, path: string, response: ApiResponse): any {
  const match = matchRoute(method, path);
  if (!match) throw new Error(`No route for ${method} ${path}`);
  const described = OPERATIONS[match.route.handler]!;
  expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBe(described.status);
  const parsed = described.body.safeParse(response.body);
  expect(parsed.error?.issues ?? [], `${method} ${path}`).toEqual([]);
  covered.add(match.route.handler);
  return response.body;
}

async function documented(method: string, path: string, options: Parameters<typeof call>[2] = {}): Promise<any> {
  return expectDocumented(method, path, await call(method, path, options));
}

/** A card-update page: HTML with its status as documented, and its CSP. */
async function documentedPage(method: string, path: string, form = '', query: Record<string, string> = {}): Promise<void> {
  const match = matchRoute(method, path);
  if (!match) throw new Error(`No route for ${method} ${path}`);
  const headers: Record<string, string> = form ? { 'content-type': 'application/x-www-form-urlencoded' } : {};
  const response = await dispatch({ method, path, query: new URLSearchParams(query), headers, body: Buffer.from(form), sourceIp: '203.0.113.40' });
  expect(response.status, `${method} ${path}: ${response.body.toString('utf8').slice(0, 300)}`).toBe(OPERATIONS[match.route.handler]!.status);
  expect(response.headers['Content-Type']).toBe('text/html; charset=utf-8');
  expect(response.headers['Content-Security-Policy']).toContain("default-src 'none'");
  covered.add(match.route.handler);
}

const today = () => new Date().toISOString().slice(0, 10);

describe('responses match the API description', () => {
  afterAll(() => {
    // Runs after the walk below, whatever its outcome: a route added without a call here fails.
    expect([...covered].sort()).toEqual([...new Set(ROUTES.map((route) => route.handler))].sort());
  });

  it('for every route, on real data', async () => {
    // Prepare
    const { merchantId, keys } = await newMerchant();
    const key = keys.test_admin;

    // Act and assess: identity and keys
    await documented('GET', '/v1/auth/me', { key });
    const apiKey = (await documented('POST', '/v1/api-keys', { key, body: { name: 'reporting', scopes: ['read'] } })).data;
    await documented('GET', '/v1/api-keys', { key });
    await documented('POST', `/v1/api-keys/${apiKey.id}/rotate`, { key });
    await documented('POST', `/v1/api-keys/${apiKey.id}/revoke`, { key });

    // Outbound endpoint first, so the events below are fanned out to it.
    const endpoint = (await documented('POST', '/v1/webhooks', { key, body: { url: 'http://127.0.0.1:9/hooks', events: ['*'] } })).data;
    await documented('GET', '/v1/webhooks', { key });
    await documented('GET', `/v1/webhooks/${endpoint.id}`, { key });
    await documented('PUT', `/v1/webhooks/${endpoint.id}`, { key, body: { description: 'all events' } });
    await documented('POST', `/v1/webhooks/${endpoint.id}/rotate-secret`, { key });

    // Processors and their webhooks
    await documented('PUT', '/v1/processors/acme', { key, body: { webhook_secret: GENERIC_SECRET } });
    const generic = await connect(key, 'acme', { webhook_secret: GENERIC_SECRET });
    const stripe = await connect(key, 'stripe', { webhook_secret: STRIPE_SECRET });
    const braintree = await connect(key, 'braintree', BRAINTREE_CREDENTIALS);
    await documented('GET', '/v1/processors', { key });
    const receipt = expectDocumented('POST', generic, await postGeneric(generic, genericFailure({ lastFour: '4242' })));
    expectDocumented('POST', stripe, await postStripe(stripe, stripeChargeFailure({ declineCode: 'expired_card' }).charge));
    expectDocumented('POST', braintree, await postBraintreeFailure(braintree, '2001'));
    await drainEvents();

    // Payments and customers
    await documented('GET', '/v1/payments', { key });
    await documented('GET', `/v1/payments/${receipt.payment_id}`, { key });
    await documented('GET', `/v1/payments/${receipt.payment_id}/events`, { key });
    await documented('GET', '/v1/customers', { key, query: { has_failed_payment: 'true' } });
    await documented('GET', `/v1/customers/${receipt.customer_id}`, { key });
    await documented('GET', `/v1/customers/${receipt.customer_id}/payments`, { key });
    await documented('POST', `/v1/payments/${receipt.payment_id}/retry`, { key });

    // Templates
    const template = (await documented('POST', '/v1/templates', { key, body: { channel: 'sms', name: 'Short', text: '{{ merchant_name }}: {{ formatted_amount }} failed' } })).data;
    await documented('GET', '/v1/templates', { key });
    await documented('GET', `/v1/templates/${template.id}`, { key });
    await documented('PUT', `/v1/templates/${template.id}`, { key, body: { name: 'Shorter' } });
    await documented('POST', `/v1/templates/tpl_payment_failed/preview`, { key, body: { customer_id: receipt.customer_id } });
    await documented('POST', `/v1/templates/${template.id}/preview`, { key, body: {} });
    await documented('POST', `/v1/templates/${template.id}/test-send`, { key, body: { to: '+14155550123' } });
    await documented('DELETE', `/v1/templates/${template.id}`, { key });

    // Campaigns
    const definition = { name: 'Card update', trigger: 'manual', steps: [{ channel: 'email', template_id: 'tpl_update_payment_method', subject: 'Update your card', delay_hours: 0 }] };
    const campaign = (await documented('POST', '/v1/campaigns', { key, body: definition })).data;
    await documented('GET', '/v1/campaigns', { key });
    await documented('PUT', `/v1/campaigns/${campaign.id}`, { key, body: { description: 'manual outreach' } });
    await documented('POST', `/v1/campaigns/${campaign.id}/activate`, { key });
    await documented('POST', `/v1/campaigns/${campaign.id}/enrollments`, { key, body: { customer_id: receipt.customer_id, payment_id: receipt.payment_id } });
    expect((await documented('GET', `/v1/campaigns/${campaign.id}/enrollments`, { key })).data).toHaveLength(1);
    expect((await documented('GET', `/v1/customers/${receipt.customer_id}/enrollments`, { key })).data).toHaveLength(1);
    await documented('GET', `/v1/campaigns/${campaign.id}`, { key });
    await documented('POST', `/v1/campaigns/${campaign.id}/pause`, { key });
    await documented('POST', `/v1/campaigns/${campaign.id}/archive`, { key });
    const draft = (await documented('POST', '/v1/campaigns', { key, body: definition })).data;
    await documented('DELETE', `/v1/campaigns/${draft.id}`, { key });
    await drainEvents();

    // Cancel flows, a session through them, and its feedback
    const flow = (await documented('POST', '/v1/cancel-flows', { key, body: flowBody() })).data;
    await documented('PUT', `/v1/cancel-flows/${flow.id}`, { key, body: { allowed_origins: ['https://app.example.com'] } });
    await documented('POST', `/v1/cancel-flows/${flow.id}/activate`, { key });
    await documented('GET', '/v1/cancel-flows', { key });
    await documented('GET', `/v1/cancel-flows/${flow.id}`, { key });
    await documented('GET', '/v1/cancel-flows/signing-secret', { key });
    const signing = (await documented('POST', '/v1/cancel-flows/signing-secret/roll', { key })).data;
    const started = await documented('POST', '/api/cancel-session/start', {
      body: {
        merchant_id: merchantId,
        customer_id: 'cus_external_1',
        subscription_id: 'sub_external_1',
        environment: 'test',
        auth_hash: authHashFor(signing.secret, 'cus_external_1', 'sub_external_1'),
      },
    });
    await documented('GET', `/api/cancel-session/${started.token}`);
    await documented('POST', `/api/cancel-session/${started.token}/advance`, { body: answer({ reason: 'too_expensive' }, 'survey') });
    await documented('POST', `/api/cancel-session/${started.token}/advance`, { body: answer({ accepted_offer: { offer_type: 'discount' } }, 'offer') });
    await documented('POST', `/api/cancel-session/${started.token}/complete`, { body: { outcome: 'saved', reason: 'too_expensive' } });
    await drainEvents();
    await documented('GET', '/v1/cancel-feedback', { key });
    await documented('POST', `/v1/cancel-flows/${flow.id}/archive`, { key });

    // Deliveries of the events above, analytics over them
    const deliveries = await documented('GET', `/v1/webhooks/${endpoint.id}/deliveries`, { key });
    expect(deliveries.data.length).toBeGreaterThan(0);
    await documented('POST', `/v1/webhooks/${endpoint.id}/deliveries/${deliveries.data[0].id}/replay`, { key });
    const recovery = await documented('GET', '/v1/analytics/recovery', { key, query: { from: today(), to: today() } });
    expect(recovery.data.currencies.length).toBeGreaterThan(0);
    const campaigns = await documented('GET', '/v1/analytics/campaigns', { key, query: { from: today(), to: today() } });
    expect(campaigns.data.campaigns.length).toBeGreaterThan(0);

    // Branding, and the card-update page (HTML) behind a personal link for the customer above
    await documented('PUT', '/v1/settings/branding', { key, body: { name: 'Acme', accent_color: '#0f766e', support_email: 'help@acme.example' } });
    await documented('GET', '/v1/settings/branding', { key });
    const tenant = { merchantId, environment: 'test' as const };
    const link = { customer_id: receipt.customer_id, campaign_id: 'cmp_openapi', id: 'enr_openapi', payment_id: receipt.payment_id };
    const pagePath = new URL((await issueUpdateLink({ updatePage }, tenant, link, 'email', runtime.clock.now())).url).pathname;
    await documentedPage('GET', pagePath);
    await documentedPage('GET', `${pagePath}/stripe-return`, '', { session_id: 'cs_test_openapi' });
    await documentedPage('POST', pagePath, 'number=4242424242424242&expiry=12%2F40&cvc=123');

    // Last: deletions
    await documented('DELETE', `/v1/webhooks/${endpoint.id}`, { key });
    await documented('DELETE', `/v1/customers/${receipt.customer_id}`, { key });
  });
});
