import { describe, expect, it } from 'vitest';
import type { Tenant } from '../../shared/model/tenant.ts';
import { call, newMerchant } from '../support/api.ts';
import { activeFlow, advance, flowBody, startSession } from '../support/cancel-flows.ts';
import { tenantItems } from '../support/tenant-items.ts';

const flows = (key: string, query: Record<string, string> = {}) => call('GET', '/v1/cancel-flows', { key, query });

describe('/v1/cancel-flows', () => {
  it('creates a draft with its steps, reads it back, and lists it', async () => {
    // Prepare
    const { keys } = await newMerchant();
    // Act
    const created = await call('POST', '/v1/cancel-flows', { key: keys.test_write, body: flowBody({ allowed_origins: ['https://shop.example.com'] }) });
    // Assess
    expect(created.status).toBe(201);
    const flow = created.body.data;
    expect(flow).toMatchObject({
      name: 'Retention flow',
      status: 'draft',
      steps_count: 3,
      allowed_origins: ['https://shop.example.com'],
      activated_at: null,
      archived_at: null,
    });
    expect(flow.id).toMatch(/^cfl_[0-9a-z]{26}$/);
    expect(flow.steps.map((step: { index: number; step_type: string }) => [step.index, step.step_type])).toEqual([
      [0, 'survey'],
      [1, 'offer'],
      [2, 'confirm'],
    ]);
    expect(flow.steps[1].config).toEqual({ offer_type: 'discount', headline: 'Half price for 3 months', percent_off: 50, duration_months: 3 });
    const read = await call('GET', `/v1/cancel-flows/${flow.id}`, { key: keys.test_read });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(flow);
    const listed = await flows(keys.test_read);
    expect(listed.body).toEqual({ data: [flow], pagination: { total: 1, page: 1, per_page: 20, total_pages: 1 } });
  });

  it.each([
    ['a missing name', 400, 'invalid_request', 'name', { name: undefined }],
    ['missing steps', 400, 'invalid_request', 'steps', { steps: undefined }],
    ['a step without step_type', 400, 'invalid_request', 'steps.0.step_type', { steps: [{ config: {} }] }],
    ['an unknown step_type', 422, 'validation_error', 'steps.0.step_type', { steps: [{ step_type: 'quiz', config: {} }] }],
    ['a discount without percent_off', 400, 'invalid_request', 'steps.0.config.percent_off', { steps: [{ step_type: 'offer', config: { offer_type: 'discount', headline: 'x' } }] }],
    ['a discount over 100%', 422, 'validation_error', 'steps.0.config.percent_off', { steps: [{ step_type: 'offer', config: { offer_type: 'discount', headline: 'x', percent_off: 150 } }] }],
    ['an unknown offer_type', 422, 'validation_error', 'steps.0.config.offer_type', { steps: [{ step_type: 'offer', config: { offer_type: 'gift', headline: 'x' } }] }],
    ['a field of another offer type', 400, 'invalid_request', 'steps.0.config.days', { steps: [{ step_type: 'offer', config: { offer_type: 'pause', headline: 'x', duration_months: 2, days: 3 } }] }],
    ['a repeated reason id', 422, 'validation_error', 'steps.0.config.reasons.1.id', { steps: [{ step_type: 'survey', config: { question: 'Why?', reasons: [{ id: 'a', label: 'A' }, { id: 'a', label: 'Again' }] } }] }],
    ['a survey without reasons', 422, 'validation_error', 'steps.0.config.reasons', { steps: [{ step_type: 'survey', config: { question: 'Why?', reasons: [] } }] }],
    ['an origin with a path', 422, 'validation_error', 'allowed_origins.0', { allowed_origins: ['https://shop.example.com/account'] }],
    ['too many steps', 422, 'validation_error', 'steps', { steps: Array.from({ length: 11 }, () => ({ step_type: 'confirm' })) }],
    ['an unknown field', 400, 'invalid_request', 'colour', { colour: 'red' }],
  ])('refuses %s: %i %s on %s', async (_case, status, code, param, overrides) => {
    const { keys } = await newMerchant();
    const response = await call('POST', '/v1/cancel-flows', { key: keys.test_write, body: flowBody(overrides) });
    expect(response.status).toBe(status);
    expect(response.body.error).toMatchObject({ code, param });
    expect((await flows(keys.test_read)).body.data).toEqual([]);
  });

  it('refuses steps over 128 KB as JSON with 422 and writes nothing; a flow just under it runs a session through every step with the largest answers', async () => {
    const { merchantId, keys } = await newMerchant();
    /** A survey step of `reasons` reasons with 20 sub-reasons each, every label 200 characters. */
    const survey = (reasons: number, tag: string) => ({
      step_type: 'survey',
      config: {
        question: 'q'.repeat(300),
        reasons: Array.from({ length: reasons }, (_, r) => ({
          id: `${tag}_r${r}`,
          label: 'l'.repeat(200),
          sub_reasons: Array.from({ length: 20 }, (_, sub) => ({ id: `${tag}_r${r}_s${sub}`, label: 's'.repeat(200) })),
        })),
      },
    });
    const oversized = Array.from({ length: 4 }, (_, i) => survey(20, `o${i}`));
    const refused = await call('POST', '/v1/cancel-flows', { key: keys.test_write, body: flowBody({ steps: oversized }) });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'validation_error', param: 'steps' });
    expect(refused.body.error.message).toMatch(/at most 128 KB as JSON \(these are \d+ KB\)/);
    expect((await flows(keys.test_read)).body.pagination.total).toBe(0);
    const existing = await call('POST', '/v1/cancel-flows', { key: keys.test_write, body: flowBody() });
    const updated = await call('PUT', `/v1/cancel-flows/${existing.body.data.id}`, { key: keys.test_write, body: { steps: oversized } });
    expect(updated.status).toBe(422);
    expect((await call('GET', `/v1/cancel-flows/${existing.body.data.id}`, { key: keys.test_read })).body.data.steps_count).toBe(3);

    // Ten steps, just under the limit: a session copies them and still takes ten answers of 8 KB each.
    const steps = Array.from({ length: 10 }, (_, i) => survey(2, `k${i}`));
    steps[9] = survey(3, 'k9');
    expect(Buffer.byteLength(JSON.stringify(steps))).toBeGreaterThan(100 * 1024);
    await activeFlow(keys.test_write, flowBody({ steps }));
    const { token } = await startSession(merchantId);
    for (let step = 0; step < 10; step++) {
      const response = await advance(token, { response_json: JSON.stringify({ reason: `k${step}_r0`, note: 'n'.repeat(8150) }) });
      expect(response.status, JSON.stringify(response.body).slice(0, 300)).toBe(200);
    }
    // The same in a script of three bytes a character, each answer's accepted offer kept a second time: still one item.
    const { token: euro } = await startSession(merchantId);
    for (let step = 0; step < 10; step++) {
      const response = await advance(euro, { response_json: JSON.stringify({ accepted_offer: '€'.repeat(2700) }) });
      expect(response.status, JSON.stringify(response.body).slice(0, 300)).toBe(200);
    }
  });

  it('refuses an allowed origin a page could not be served from: a wildcard, a host over 253 characters (422)', async () => {
    const { keys } = await newMerchant();
    for (const origin of ['https://*.example.com', `https://${'a'.repeat(3000)}.com`, `https://${Array.from({ length: 80 }, () => 'abcd').join('.')}.com`, 'https://-bad.example.com']) {
      const refused = await call('POST', '/v1/cancel-flows', { key: keys.test_write, body: flowBody({ allowed_origins: [origin] }) });
      expect(refused.status, origin.slice(0, 40)).toBe(422);
      expect(refused.body.error.param).toBe('allowed_origins.0');
    }
    const fine = await call('POST', '/v1/cancel-flows', { key: keys.test_write, body: flowBody({ allowed_origins: ['https://app.example.com', 'http://localhost:3000', 'https://[::1]:8443'] }) });
    expect(fine.status).toBe(201);
  });

  it('needs write scope to change flows and read scope to see them', async () => {
    const { keys } = await newMerchant();
    const refused = await call('POST', '/v1/cancel-flows', { key: keys.test_read, body: flowBody() });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_scope');
    const flowId = await activeFlow(keys.test_write);
    expect((await call('POST', `/v1/cancel-flows/${flowId}/archive`, { key: keys.test_read })).status).toBe(403);
    expect((await call('PUT', `/v1/cancel-flows/${flowId}`, { key: keys.test_read, body: { name: 'x' } })).status).toBe(403);
    expect((await call('GET', `/v1/cancel-flows/${flowId}`, { key: keys.test_read })).status).toBe(200);
  });

  it('keeps test and live flows apart, with the wrong-mode hint for an id of the other environment', async () => {
    const { keys } = await newMerchant();
    const flowId = await activeFlow(keys.test_write);
    const fromLive = await call('GET', `/v1/cancel-flows/${flowId}`, { key: keys.live_admin });
    expect(fromLive.status).toBe(401);
    expect(fromLive.body.error.code).toBe('invalid_api_key');
    expect((await flows(keys.live_admin)).body.data).toEqual([]);
    const unknown = await call('GET', '/v1/cancel-flows/cfl_00000000000000000000000000', { key: keys.test_read });
    expect(unknown.status).toBe(404);
  });

  it('updates only the fields sent; a supplied steps array replaces the steps', async () => {
    const { keys } = await newMerchant();
    const flowId = (await call('POST', '/v1/cancel-flows', { key: keys.test_write, body: flowBody() })).body.data.id;
    const renamed = await call('PUT', `/v1/cancel-flows/${flowId}`, { key: keys.test_write, body: { name: 'Renamed' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: 'Renamed', steps_count: 3 });
    const restepped = await call('PUT', `/v1/cancel-flows/${flowId}`, { key: keys.test_write, body: { steps: [{ step_type: 'confirm' }] } });
    expect(restepped.body.data).toMatchObject({ name: 'Renamed', steps: [{ index: 0, step_type: 'confirm', config: {} }] });
    const empty = await call('PUT', `/v1/cancel-flows/${flowId}`, { key: keys.test_write, body: {} });
    expect(empty.status).toBe(400);
    const invalid = await call('PUT', `/v1/cancel-flows/${flowId}`, { key: keys.test_write, body: { name: '' } });
    expect(invalid.body.error).toMatchObject({ code: 'validation_error', param: 'name' });
  });

  it('has exactly one active flow per environment: activating another deactivates the previous one', async () => {
    // Prepare
    const { merchantId, keys } = await newMerchant();
    const first = await activeFlow(keys.test_write);
    const second = (await call('POST', '/v1/cancel-flows', { key: keys.test_write, body: flowBody({ name: 'Second' }) })).body.data.id;
    // Act
    const activated = await call('POST', `/v1/cancel-flows/${second}/activate`, { key: keys.test_write });
    // Assess
    expect(activated.status).toBe(200);
    expect(activated.body.data).toMatchObject({ id: second, status: 'active' });
    expect(activated.body.data.activated_at).toMatch(/Z$/);
    const previous = (await call('GET', `/v1/cancel-flows/${first}`, { key: keys.test_read })).body.data;
    expect(previous).toMatchObject({ status: 'inactive' });
    expect(previous.deactivated_at).toBe(activated.body.data.activated_at);
    expect((await flows(keys.test_read, { status: 'active' })).body.data.map((flow: { id: string }) => flow.id)).toEqual([second]);
    // New sessions run the active flow; activating it again changes nothing.
    expect((await startSession(merchantId)).body.session.cancelFlowId).toBe(second);
    const again = await call('POST', `/v1/cancel-flows/${second}/activate`, { key: keys.test_write });
    expect(again.body.data).toEqual(activated.body.data);
  });

  it('ends with exactly one active flow when several are activated at once', async () => {
    const { merchantId, keys } = await newMerchant();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await call('POST', '/v1/cancel-flows', { key: keys.test_write, body: flowBody({ name: `Flow ${i}` }) })).body.data.id);
    const responses = await Promise.all(ids.map((id) => call('POST', `/v1/cancel-flows/${id}/activate`, { key: keys.test_write })));
    expect(responses.every((response) => response.status === 200 || response.status === 409)).toBe(true);
    const active = (await flows(keys.test_read, { status: 'active' })).body.data;
    expect(active).toHaveLength(1);
    const tenant: Tenant = { merchantId, environment: 'test' };
    const [pointer] = await tenantItems(tenant, 'CANCELFLOW_ACTIVE');
    expect(pointer!.flow_id).toBe(active[0].id);
    // The timeline reads true: none deactivated before it was activated, and none activated after the one that stands.
    for (const flow of (await flows(keys.test_read)).body.data) {
      if (flow.deactivated_at) expect(flow.deactivated_at >= flow.activated_at, flow.id).toBe(true);
      if (flow.activated_at) expect(flow.activated_at <= active[0].activated_at, flow.id).toBe(true);
    }
  });

  it('archives for good: an archived active flow leaves no active flow, and cannot be changed or activated', async () => {
    const { merchantId, keys } = await newMerchant();
    const flowId = await activeFlow(keys.test_write);
    const archived = await call('POST', `/v1/cancel-flows/${flowId}/archive`, { key: keys.test_write });
    expect(archived.status).toBe(200);
    expect(archived.body.data).toMatchObject({ status: 'archived' });
    const start = await call('POST', '/api/cancel-session/start', {
      body: { merchant_id: merchantId, customer_id: 'c', subscription_id: 's', environment: 'test' },
    });
    expect(start.status).toBe(404);
    for (const [method, path, body] of [
      ['POST', `/v1/cancel-flows/${flowId}/archive`, undefined],
      ['POST', `/v1/cancel-flows/${flowId}/activate`, undefined],
      ['PUT', `/v1/cancel-flows/${flowId}`, { name: 'x' }],
    ] as const) {
      const response = await call(method, path, { key: keys.test_write, body });
      expect(response.status, `${method} ${path}`).toBe(409);
      expect(response.body.error.code).toBe('state_conflict');
    }
    expect((await flows(keys.test_read, { status: 'archived' })).body.pagination.total).toBe(1);
  });
});
