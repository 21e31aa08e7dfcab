import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { runtime } from '../../shared/runtime.ts';
import { updateCampaign } from '../../shared/domain/campaigns/campaign-lifecycle.ts';
import { PLANS } from '../../shared/model/plans.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { campaignCounts, campaignSk, findCampaignVersion } from '../../shared/store/campaigns.ts';
import { tenantKey } from '../../shared/store/keys.ts';
import { advanceClock, call, newMerchant, type ApiResponse } from '../support/api.ts';
import { tenantItems } from '../support/tenant-items.ts';

const CAMPAIGNS = '/v1/campaigns';

type Body = Record<string, any>;

function validBody(): Body {
  return {
    name: 'Expired card reminders',
    description: 'Ask customers with an expired card to update it',
    trigger: 'card_expired',
    trigger_conditions: { decline_categories: ['hard_customer'], min_amount: 1000, max_amount: 50000 },
    steps: [
      { channel: 'email', template_id: 'tpl_use_different_card', subject: 'Your card has expired', delay_hours: 0 },
      { channel: 'sms', template_id: 'tpl_use_different_card_sms', delay_hours: 48 },
    ],
    stop_conditions: { max_attempts: 2, stop_on_recovery: true, stop_on_terminal: true, stop_on_card_update: false },
    quiet_hours: { enabled: true, start_hour: 22, end_hour: 7, timezone: 'Europe/Paris' },
  };
}

function minimalBody(name = 'Dunning'): Body {
  return { name, trigger: 'payment_failed', steps: [{ channel: 'email', template_id: 'tpl_payment_failed', subject: 'Payment failed', delay_hours: 0 }] };
}

function expectError(response: ApiResponse, status: number, code: string, param?: string) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.error.code).toBe(code);
  expect(response.body.error.request_id).toBe(response.headers['X-Request-Id']);
  if (param !== undefined) expect(response.body.error.param).toBe(param);
}

async function setUp(plan: keyof typeof PLANS = 'enterprise') {
  const merchant = await newMerchant({ plan });
  const tenant: Tenant = { merchantId: merchant.merchantId, environment: 'test' };
  return { ...merchant, key: merchant.keys.test_write, tenant };
}

async function create(key: string, body: Body = minimalBody()): Promise<string> {
  const response = await call('POST', CAMPAIGNS, { key, body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data.id;
}

const act = (key: string, id: string, action: 'activate' | 'pause' | 'archive') => call('POST', `${CAMPAIGNS}/${id}/${action}`, { key });
const read = async (key: string, id: string) => (await call('GET', `${CAMPAIGNS}/${id}`, { key })).body.data;

/** A campaign brought to the given status through the API. */
async function campaignIn(key: string, status: 'draft' | 'active' | 'paused' | 'archived'): Promise<string> {
  const id = await create(key);
  const path: Record<typeof status, ('activate' | 'pause' | 'archive')[]> = {
    draft: [],
    active: ['activate'],
    paused: ['activate', 'pause'],
    archived: ['archive'],
  };
  for (const action of path[status]) expect((await act(key, id, action)).status).toBe(200);
  return id;
}

/** The plan counts must always equal what the campaigns themselves say. */
async function expectCountsConsistent(tenant: Tenant) {
  const campaigns = await tenantItems(tenant, 'CAMPAIGN#');
  expect(await campaignCounts(tenant)).toEqual({
    open: campaigns.filter((campaign) => campaign.status !== 'archived').length,
    active: campaigns.filter((campaign) => campaign.status === 'active').length,
  });
}

describe('creating and reading campaigns (§2.2, §4.1)', () => {
  it('creates a draft and answers with the §4.1 create fields', async () => {
    // Prepare
    const { key } = await setUp();
    // Act
    const response = await call('POST', CAMPAIGNS, { key, body: validBody() });
    // Assess
    expect(response.status).toBe(201);
    expect(response.body.data).toEqual({
      id: expect.stringMatching(/^cmp_[0-9a-z]{26}$/),
      name: 'Expired card reminders',
      status: 'draft',
      trigger: 'card_expired',
      steps_count: 2,
      created_at: expect.any(String),
    });
  });

  it('returns every §2.2 field on the detail, with step index and delay_from derived', async () => {
    // Prepare
    const { key } = await setUp();
    const id = await create(key, validBody());
    // Act
    const response = await call('GET', `${CAMPAIGNS}/${id}`, { key });
    // Assess
    expect(response.status).toBe(200);
    const data = response.body.data;
    expect(data).toEqual({
      id,
      name: 'Expired card reminders',
      description: 'Ask customers with an expired card to update it',
      status: 'draft',
      trigger: 'card_expired',
      trigger_conditions: { decline_categories: ['hard_customer'], min_amount: 1000, max_amount: 50000 },
      steps: [
        { index: 0, channel: 'email', template_id: 'tpl_use_different_card', subject: 'Your card has expired', delay_hours: 0, delay_from: 'enrollment' },
        { index: 1, channel: 'sms', template_id: 'tpl_use_different_card_sms', delay_hours: 48, delay_from: 'previous_step' },
      ],
      stop_conditions: { max_attempts: 2, stop_on_recovery: true, stop_on_terminal: true, stop_on_card_update: false },
      quiet_hours: { enabled: true, start_hour: 22, end_hour: 7, timezone: 'Europe/Paris' },
      steps_count: 2,
      enrolled_count: 0,
      recovered_count: 0,
      recovery_rate: 0,
      channels: ['email', 'sms'],
      stats: {
        enrolled_count: 0,
        recovered_count: 0,
        terminal_count: 0,
        active_count: 0,
        recovery_rate: 0,
        total_recovered_amount: 0,
        currency: null,
      },
      created_at: data.created_at,
      activated_at: null,
      updated_at: data.created_at,
    });
  });

  it('fills the documented defaults for omitted optional fields', async () => {
    const { key } = await setUp();
    const id = await create(key, minimalBody());
    const data = await read(key, id);
    expect(data).toMatchObject({
      description: '',
      trigger_conditions: { decline_categories: [], min_amount: null, max_amount: null },
      stop_conditions: { max_attempts: 20, stop_on_recovery: true, stop_on_terminal: true, stop_on_card_update: true },
      quiet_hours: { enabled: false, start_hour: 21, end_hour: 8, timezone: 'UTC' },
      channels: ['email'],
    });
  });

  it('stores version 1 of the definition as its own immutable item', async () => {
    const { key, tenant } = await setUp();
    const id = await create(key, validBody());
    const version = await findCampaignVersion(tenant, id, 1);
    expect(version).toMatchObject({ campaign_id: id, version: 1, name: 'Expired card reminders', trigger: 'card_expired' });
    expect(version?.steps).toEqual(validBody().steps);
  });

  it('shows the counters the engine maintains, and no API write resets them', async () => {
    // Prepare
    const { key, tenant } = await setUp();
    const id = await create(key, validBody());
    await runtime.db.send(
      new UpdateCommand({
        TableName: runtime.tableName,
        Key: tenantKey(tenant, campaignSk(id)),
        UpdateExpression: [
          'SET enrolled_count = :enrolled, recovered_count = :recovered, terminal_count = :terminal, active_count = :active,',
          'recovered_amounts = :amounts, primary_currency = :currency',
        ].join(' '),
        ExpressionAttributeValues: { ':enrolled': 8, ':recovered': 2, ':terminal': 1, ':active': 5, ':amounts': { eur: 4500, usd: 100 }, ':currency': 'eur' },
      }),
    );
    // Act
    expect((await call('PUT', `${CAMPAIGNS}/${id}`, { key, body: { name: 'Renamed' } })).status).toBe(200);
    expect((await act(key, id, 'activate')).status).toBe(200);
    const detail = await read(key, id);
    const list = await call('GET', CAMPAIGNS, { key });
    // Assess
    expect(detail).toMatchObject({ enrolled_count: 8, recovered_count: 2, recovery_rate: 0.25 });
    expect(detail.stats).toEqual({
      enrolled_count: 8,
      recovered_count: 2,
      terminal_count: 1,
      active_count: 5,
      recovery_rate: 0.25,
      total_recovered_amount: 4500,
      currency: 'eur',
    });
    expect(list.body.data[0]).toMatchObject({ id, enrolled_count: 8, recovered_count: 2, recovery_rate: 0.25 });
  });

  it('accepts the boundaries of every limit', async () => {
    const { key } = await setUp();
    const body = {
      name: 'n'.repeat(100),
      description: 'd'.repeat(1000),
      trigger: 'manual',
      trigger_conditions: { decline_categories: [], min_amount: 0, max_amount: 0 },
      steps: Array.from({ length: 20 }, (_, i) => ({
        channel: 'email',
        template_id: 'tpl_contact_bank_or_update_card',
        subject: 's'.repeat(200),
        delay_hours: i % 2 === 0 ? 0 : 8760,
      })),
      stop_conditions: { max_attempts: 1 },
      quiet_hours: { enabled: true, start_hour: 0, end_hour: 23, timezone: 'America/Argentina/Buenos_Aires' },
    };
    const response = await call('POST', CAMPAIGNS, { key, body });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body.data.steps_count).toBe(20);
  });

  it('accepts every trigger type (§2.2)', async () => {
    const { key } = await setUp();
    const triggers = [
      ...['payment_failed', 'card_expiring', 'card_expired', 'soft_decline', 'repeated_failure'],
      ...['high_value_churn', 'pre_dunning', 'manual', 'any_decline'],
    ];
    for (const trigger of triggers) {
      const response = await call('POST', CAMPAIGNS, { key, body: { ...minimalBody(), trigger } });
      expect(response.status, trigger).toBe(201);
      expect(response.body.data.trigger).toBe(trigger);
    }
  });
});

describe('validation: a missing field is 400 invalid_request, an invalid one 422 validation_error, both naming it', () => {
  const without = (mutate: (body: Body) => void): Body => {
    const body = validBody();
    mutate(body);
    return body;
  };

  it.each<[string, Body, string]>([
    ['name', without((b) => delete b.name), 'name'],
    ['trigger', without((b) => delete b.trigger), 'trigger'],
    ['steps', without((b) => delete b.steps), 'steps'],
    ['a step channel', without((b) => delete b.steps[0].channel), 'steps.0.channel'],
    ['a step template_id', without((b) => delete b.steps[1].template_id), 'steps.1.template_id'],
    ['a step delay_hours', without((b) => delete b.steps[1].delay_hours), 'steps.1.delay_hours'],
  ])('missing %s → 400', async (_, body, param) => {
    const { key } = await setUp();
    expectError(await call('POST', CAMPAIGNS, { key, body }), 400, 'invalid_request', param);
  });

  it.each<[string, Body, string]>([
    ['an unknown field', without((b) => (b.priority = 1)), 'priority'],
    ['an unknown step field', without((b) => (b.steps[0].body = 'hi')), 'steps.0.body'],
    ['an unknown quiet_hours field', without((b) => (b.quiet_hours.start = 1)), 'quiet_hours.start'],
  ])('%s → 400', async (_, body, param) => {
    const { key } = await setUp();
    expectError(await call('POST', CAMPAIGNS, { key, body }), 400, 'invalid_request', param);
  });

  it.each<[string, Body, string]>([
    ['an empty name', without((b) => (b.name = '')), 'name'],
    ['a blank name', without((b) => (b.name = '   ')), 'name'],
    ['a name over 100 characters', without((b) => (b.name = 'n'.repeat(101))), 'name'],
    ['a name that is not a string', without((b) => (b.name = 42)), 'name'],
    ['a null name', without((b) => (b.name = null)), 'name'],
    ['a description over 1000 characters', without((b) => (b.description = 'd'.repeat(1001))), 'description'],
    ['an unknown trigger', without((b) => (b.trigger = 'on_failure')), 'trigger'],
    ['no steps', without((b) => (b.steps = [])), 'steps'],
    ['21 steps', without((b) => (b.steps = Array.from({ length: 21 }, () => b.steps[1]))), 'steps'],
    ['steps that are not an array', without((b) => (b.steps = 'email')), 'steps'],
    ['a step that is not an object', without((b) => (b.steps[1] = 'sms')), 'steps.1'],
    ['an unknown channel', without((b) => (b.steps[0].channel = 'fax')), 'steps.0.channel'],
    ['a template id without tpl_', without((b) => (b.steps[0].template_id = 'card_expired')), 'steps.0.template_id'],
    ['a template id with capitals', without((b) => (b.steps[0].template_id = 'tpl_Card')), 'steps.0.template_id'],
    ['a bare tpl_', without((b) => (b.steps[0].template_id = 'tpl_')), 'steps.0.template_id'],
    ['an email step without subject', without((b) => delete b.steps[0].subject), 'steps.0.subject'],
    ['an email step with an empty subject', without((b) => (b.steps[0].subject = ' ')), 'steps.0.subject'],
    ['a subject over 200 characters', without((b) => (b.steps[0].subject = 's'.repeat(201))), 'steps.0.subject'],
    ['an sms step with a subject', without((b) => (b.steps[1].subject = 'Hi')), 'steps.1.subject'],
    ['a negative delay', without((b) => (b.steps[1].delay_hours = -1)), 'steps.1.delay_hours'],
    ['a fractional delay', without((b) => (b.steps[1].delay_hours = 1.5)), 'steps.1.delay_hours'],
    ['a delay over a year', without((b) => (b.steps[1].delay_hours = 8761)), 'steps.1.delay_hours'],
    ['a delay as a string', without((b) => (b.steps[1].delay_hours = '24')), 'steps.1.delay_hours'],
    ['trigger_conditions that are not an object', without((b) => (b.trigger_conditions = 'all')), 'trigger_conditions'],
    ['an unknown decline category', without((b) => (b.trigger_conditions.decline_categories = ['soft_retry', 'fraud'])), 'trigger_conditions.decline_categories.1'],
    ['a repeated decline category', without((b) => (b.trigger_conditions.decline_categories = ['terminal', 'terminal'])), 'trigger_conditions.decline_categories'],
    ['a negative min_amount', without((b) => (b.trigger_conditions.min_amount = -1)), 'trigger_conditions.min_amount'],
    ['a fractional max_amount', without((b) => (b.trigger_conditions.max_amount = 10.5)), 'trigger_conditions.max_amount'],
    ['min_amount above max_amount', without((b) => Object.assign(b.trigger_conditions, { min_amount: 5001, max_amount: 5000 })), 'trigger_conditions.max_amount'],
    ['max_attempts of 0', without((b) => (b.stop_conditions.max_attempts = 0)), 'stop_conditions.max_attempts'],
    ['max_attempts over 20', without((b) => (b.stop_conditions.max_attempts = 21)), 'stop_conditions.max_attempts'],
    ['a non-boolean stop flag', without((b) => (b.stop_conditions.stop_on_recovery = 'yes')), 'stop_conditions.stop_on_recovery'],
    ['a start hour of 24', without((b) => (b.quiet_hours.start_hour = 24)), 'quiet_hours.start_hour'],
    ['a negative end hour', without((b) => (b.quiet_hours.end_hour = -1)), 'quiet_hours.end_hour'],
    ['a fractional hour', without((b) => (b.quiet_hours.start_hour = 21.5)), 'quiet_hours.start_hour'],
    ['an unknown time zone', without((b) => (b.quiet_hours.timezone = 'Mars/Olympus_Mons')), 'quiet_hours.timezone'],
    ['an offset instead of a zone', without((b) => (b.quiet_hours.timezone = '+02:00')), 'quiet_hours.timezone'],
    ['an enabled empty window (start = end)', without((b) => Object.assign(b.quiet_hours, { start_hour: 9, end_hour: 9 })), 'quiet_hours.end_hour'],
    ['a non-boolean enabled', without((b) => (b.quiet_hours.enabled = 1)), 'quiet_hours.enabled'],
  ])('%s → 422', async (_, body, param) => {
    const { key, tenant } = await setUp();
    const response = await call('POST', CAMPAIGNS, { key, body });
    expectError(response, 422, 'validation_error', param);
    expect(response.body.error.message).toContain(param);
    expect(await tenantItems(tenant, 'CAMPAIGN')).toEqual([]);
  });
});

describe('updating a campaign (PUT, §3.1, §4.1)', () => {
  it('changes only the fields sent and answers with the §4.1 update fields', async () => {
    // Prepare
    const { key } = await setUp();
    const id = await create(key, validBody());
    const before = await read(key, id);
    advanceClock(60);
    // Act
    const response = await call('PUT', `${CAMPAIGNS}/${id}`, { key, body: { name: 'Renamed', stop_conditions: { max_attempts: 1 } } });
    // Assess
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ id, name: 'Renamed', status: 'draft', updated_at: expect.any(String) });
    expect(response.body.data.updated_at > before.updated_at).toBe(true);
    const after = await read(key, id);
    expect(after).toEqual({
      ...before,
      name: 'Renamed',
      stop_conditions: { ...before.stop_conditions, max_attempts: 1 },
      updated_at: response.body.data.updated_at,
    });
  });

  it('replaces every step when steps are sent', async () => {
    const { key } = await setUp();
    const id = await create(key, validBody());
    const steps = [{ channel: 'sms', template_id: 'tpl_contact_bank_sms', delay_hours: 12 }];
    expect((await call('PUT', `${CAMPAIGNS}/${id}`, { key, body: { steps } })).status).toBe(200);
    const after = await read(key, id);
    expect(after.steps).toEqual([{ index: 0, channel: 'sms', template_id: 'tpl_contact_bank_sms', delay_hours: 12, delay_from: 'enrollment' }]);
    expect(after).toMatchObject({ steps_count: 1, channels: ['sms'] });
  });

  it('merges nested objects field by field', async () => {
    const { key } = await setUp();
    const id = await create(key, validBody());
    const response = await call('PUT', `${CAMPAIGNS}/${id}`, {
      key,
      body: { quiet_hours: { enabled: false }, trigger_conditions: { max_amount: null } },
    });
    expect(response.status).toBe(200);
    const after = await read(key, id);
    expect(after.quiet_hours).toEqual({ enabled: false, start_hour: 22, end_hour: 7, timezone: 'Europe/Paris' });
    expect(after.trigger_conditions).toEqual({ decline_categories: ['hard_customer'], min_amount: 1000, max_amount: null });
  });

  it('saves each update as a new version and keeps every earlier one readable', async () => {
    // Prepare
    const { key, tenant } = await setUp();
    const id = await create(key, validBody());
    expect((await act(key, id, 'activate')).status).toBe(200);
    // Act
    await call('PUT', `${CAMPAIGNS}/${id}`, { key, body: { name: 'Second' } });
    await call('PUT', `${CAMPAIGNS}/${id}`, { key, body: { steps: [{ channel: 'sms', template_id: 'tpl_add_funds_sms', delay_hours: 1 }] } });
    // Assess
    const versions = await tenantItems(tenant, `CAMPAIGN_VERSION#${id}#`);
    expect(versions.map((version) => version.version)).toEqual([1, 2, 3]);
    const [first, second, third] = await Promise.all([1, 2, 3].map((n) => findCampaignVersion(tenant, id, n)));
    expect(first).toMatchObject({ name: 'Expired card reminders', steps: validBody().steps });
    expect(second).toMatchObject({ name: 'Second', steps: validBody().steps });
    expect(third).toMatchObject({ name: 'Second', steps: [{ channel: 'sms', template_id: 'tpl_add_funds_sms', delay_hours: 1 }] });
    const [campaign] = await tenantItems(tenant, `CAMPAIGN#${id}`);
    expect(campaign).toMatchObject({ version: 3, status: 'active', name: 'Second' });
  });

  it('takes the hours of a quiet window that is off as sent, and checks them once it is enabled', async () => {
    const { key } = await setUp();
    const off = { enabled: false, start_hour: 0, end_hour: 0, timezone: 'UTC' };
    const id = await create(key, { ...minimalBody(), quiet_hours: off });
    expect((await read(key, id)).quiet_hours).toEqual(off);
    const sameHours = await call('PUT', `${CAMPAIGNS}/${id}`, { key, body: { quiet_hours: { enabled: false, start_hour: 9, end_hour: 9 } } });
    expect(sameHours.status, JSON.stringify(sameHours.body)).toBe(200);
    expect((await read(key, id)).quiet_hours).toEqual({ ...off, start_hour: 9, end_hour: 9 });
    expectError(await call('PUT', `${CAMPAIGNS}/${id}`, { key, body: { quiet_hours: { enabled: true } } }), 422, 'validation_error', 'quiet_hours.end_hour');
    expect((await read(key, id)).quiet_hours).toEqual({ ...off, start_hour: 9, end_hour: 9 });
    expect((await call('PUT', `${CAMPAIGNS}/${id}`, { key, body: { quiet_hours: { enabled: true, end_hour: 17 } } })).status).toBe(200);
    expect((await read(key, id)).quiet_hours).toEqual({ enabled: true, start_hour: 9, end_hour: 17, timezone: 'UTC' });
  });

  it('checks the merged definition: a max_amount below the stored min_amount is 422', async () => {
    const { key } = await setUp();
    const id = await create(key, validBody());
    const update = (body: Body) => call('PUT', `${CAMPAIGNS}/${id}`, { key, body });
    expectError(await update({ trigger_conditions: { max_amount: 999 } }), 422, 'validation_error', 'trigger_conditions.max_amount');
    expectError(await update({ quiet_hours: { end_hour: 22 } }), 422, 'validation_error', 'quiet_hours.end_hour');
    expectError(
      await call('PUT', `${CAMPAIGNS}/${id}`, { key, body: { steps: [{ channel: 'email', template_id: 'tpl_x', delay_hours: 0 }] } }),
      422,
      'validation_error',
      'steps.0.subject',
    );
    expect((await read(key, id)).trigger_conditions.max_amount).toBe(50000);
  });

  it('refuses invalid fields, unknown fields and an empty update', async () => {
    const { key } = await setUp();
    const id = await create(key);
    expectError(await call('PUT', `${CAMPAIGNS}/${id}`, { key, body: { steps: [] } }), 422, 'validation_error', 'steps');
    expectError(await call('PUT', `${CAMPAIGNS}/${id}`, { key, body: { name: null } }), 422, 'validation_error', 'name');
    expectError(await call('PUT', `${CAMPAIGNS}/${id}`, { key, body: { trigger: 'sometimes' } }), 422, 'validation_error', 'trigger');
    expectError(await call('PUT', `${CAMPAIGNS}/${id}`, { key, body: { status: 'active' } }), 400, 'invalid_request', 'status');
    expectError(await call('PUT', `${CAMPAIGNS}/${id}`, { key, body: {} }), 400, 'invalid_request');
  });
});

describe('lifecycle transitions (§3.1)', () => {
  type Status = 'draft' | 'active' | 'paused' | 'archived';
  type Action = 'activate' | 'pause' | 'archive' | 'update' | 'delete';
  // from, action, expected HTTP status, status afterwards
  const matrix: [Status, Action, number, Status | 'deleted'][] = [
    ['draft', 'activate', 200, 'active'],
    ['draft', 'pause', 409, 'draft'],
    ['draft', 'archive', 200, 'archived'],
    ['draft', 'update', 200, 'draft'],
    ['draft', 'delete', 200, 'deleted'],
    ['active', 'activate', 409, 'active'],
    ['active', 'pause', 200, 'paused'],
    ['active', 'archive', 200, 'archived'],
    ['active', 'update', 200, 'active'],
    ['active', 'delete', 409, 'active'],
    ['paused', 'activate', 200, 'active'],
    ['paused', 'pause', 409, 'paused'],
    ['paused', 'archive', 200, 'archived'],
    ['paused', 'update', 200, 'paused'],
    ['paused', 'delete', 409, 'paused'],
    ['archived', 'activate', 409, 'archived'],
    ['archived', 'pause', 409, 'archived'],
    ['archived', 'archive', 409, 'archived'],
    ['archived', 'update', 409, 'archived'],
    ['archived', 'delete', 409, 'archived'],
  ];

  const perform = (key: string, id: string, action: Action) => {
    if (action === 'update') return call('PUT', `${CAMPAIGNS}/${id}`, { key, body: { name: 'Changed' } });
    if (action === 'delete') return call('DELETE', `${CAMPAIGNS}/${id}`, { key });
    return act(key, id, action);
  };

  it.each(matrix)('%s → %s: %i, then %s', async (from, action, status, after) => {
    // Prepare
    const { key, tenant } = await setUp();
    const id = await campaignIn(key, from);
    // Act
    const response = await perform(key, id, action);
    // Assess
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    if (status === 409) {
      expectError(response, 409, 'state_conflict');
      expect(response.body.error.message).toContain(`Campaign '${id}'`);
      expect(response.body.error.message).toContain(`'${from}'`);
    }
    if (after === 'deleted') {
      expectError(await call('GET', `${CAMPAIGNS}/${id}`, { key }), 404, 'resource_not_found');
    } else {
      expect((await read(key, id)).status).toBe(after);
    }
    await expectCountsConsistent(tenant);
  });

  it('answers activate, pause and archive with the status and the time of the change', async () => {
    const { key } = await setUp();
    const id = await create(key);
    const activated = await act(key, id, 'activate');
    expect(activated.body.data).toEqual({ id, status: 'active', activated_at: expect.any(String) });
    const paused = await act(key, id, 'pause');
    expect(paused.body.data).toEqual({ id, status: 'paused', paused_at: expect.any(String) });
    const archived = await act(key, id, 'archive');
    expect(archived.body.data).toEqual({ id, status: 'archived', archived_at: expect.any(String) });
    expect((await read(key, id)).updated_at).toBe(archived.body.data.archived_at);
  });

  it('activated_at reflects the last activation', async () => {
    // Prepare
    const { key } = await setUp();
    const id = await create(key);
    expect((await read(key, id)).activated_at).toBeNull();
    const first = await act(key, id, 'activate');
    advanceClock(3600);
    await act(key, id, 'pause');
    advanceClock(3600);
    // Act
    const second = await act(key, id, 'activate');
    // Assess
    expect(second.body.data.activated_at > first.body.data.activated_at).toBe(true);
    const detail = await read(key, id);
    expect(detail.activated_at).toBe(second.body.data.activated_at);
    expect(detail.updated_at).toBe(second.body.data.activated_at);
  });

  it('lets exactly one of 10 concurrent activations of a draft win', async () => {
    // Prepare
    const { key, tenant } = await setUp();
    const id = await create(key);
    // Act
    const responses = await Promise.all(Array.from({ length: 10 }, () => act(key, id, 'activate')));
    // Assess
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    for (const loser of responses.filter((response) => response.status !== 200)) {
      expectError(loser, 409, 'state_conflict');
      expect(loser.body.error.message).toContain("its status is 'active'");
    }
    expect(await campaignCounts(tenant)).toEqual({ open: 1, active: 1 });
  });

  it('lets exactly one of concurrent pause and archive requests on an active campaign win each change', async () => {
    const { key, tenant } = await setUp();
    const id = await campaignIn(key, 'active');
    const responses = await Promise.all([...Array.from({ length: 4 }, () => act(key, id, 'pause')), ...Array.from({ length: 4 }, () => act(key, id, 'archive'))]);
    const archives = responses.slice(4).filter((response) => response.status === 200);
    expect(archives).toHaveLength(1);
    expect(responses.slice(0, 4).filter((response) => response.status === 200).length).toBeLessThanOrEqual(1);
    for (const response of responses.filter((r) => r.status !== 200)) expectError(response, 409, 'state_conflict');
    expect((await read(key, id)).status).toBe('archived');
    await expectCountsConsistent(tenant);
  });

  it('keeps concurrent updates in one line of versions: none lost, none duplicated', async () => {
    const { key, tenant } = await setUp();
    const id = await create(key);
    const responses = await Promise.all(Array.from({ length: 5 }, (_, i) => call('PUT', `${CAMPAIGNS}/${id}`, { key, body: { name: `Name ${i}` } })));
    const succeeded = responses.filter((response) => response.status === 200);
    for (const response of responses.filter((r) => r.status !== 200)) expectError(response, 409, 'state_conflict');
    const versions = await tenantItems(tenant, `CAMPAIGN_VERSION#${id}#`);
    expect(versions.map((version) => version.version)).toEqual(Array.from({ length: succeeded.length + 1 }, (_, i) => i + 1));
    const [campaign] = await tenantItems(tenant, `CAMPAIGN#${id}`);
    expect(campaign!.version).toBe(succeeded.length + 1);
    expect(campaign!.name).toBe(versions.at(-1)!.name);
  });
});

describe('deleting a campaign', () => {
  it('removes a draft and every version of it, and answers {id, deleted}', async () => {
    // Prepare
    const { key, tenant } = await setUp();
    const id = await create(key);
    await call('PUT', `${CAMPAIGNS}/${id}`, { key, body: { name: 'v2' } });
    await call('PUT', `${CAMPAIGNS}/${id}`, { key, body: { name: 'v3' } });
    // Act
    const response = await call('DELETE', `${CAMPAIGNS}/${id}`, { key });
    // Assess
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ id, deleted: true });
    expect(await tenantItems(tenant, `CAMPAIGN#${id}`)).toEqual([]);
    expect(await tenantItems(tenant, `CAMPAIGN_VERSION#${id}#`)).toEqual([]);
    expect(await campaignCounts(tenant)).toEqual({ open: 0, active: 0 });
    expectError(await call('DELETE', `${CAMPAIGNS}/${id}`, { key }), 404, 'resource_not_found');
  });

  it('removes every version even when there are more than one transaction holds', async () => {
    const { key, tenant } = await setUp();
    const id = await create(key);
    for (let i = 2; i <= 101; i++) await updateCampaign(tenant, id, { name: `v${i}` }, runtime.clock.now());
    expect(await tenantItems(tenant, `CAMPAIGN_VERSION#${id}#`)).toHaveLength(101);
    expect((await call('DELETE', `${CAMPAIGNS}/${id}`, { key })).status).toBe(200);
    expect(await tenantItems(tenant, 'CAMPAIGN')).toEqual([expect.objectContaining({ sk: 'CAMPAIGN_COUNTS', open_campaigns: 0 })]);
  }, 60_000);

  it('refuses to delete a campaign that ran, pointing at archive', async () => {
    const { key } = await setUp();
    const id = await campaignIn(key, 'paused');
    const response = await call('DELETE', `${CAMPAIGNS}/${id}`, { key });
    expectError(response, 409, 'state_conflict');
    expect(response.body.error.message).toContain('archive');
  });
});

describe('plan campaign limits (§8)', () => {
  it('counts campaigns not archived on create and active ones on activate; 403 campaign_limit_exceeded beyond', async () => {
    // Prepare
    const { key, tenant } = await setUp('starter');
    const { open, active } = PLANS.starter.campaigns;
    const ids: string[] = [];
    for (let i = 0; i < open; i++) ids.push(await create(key, minimalBody(`Campaign ${i}`)));
    // Act
    const overCreate = await call('POST', CAMPAIGNS, { key, body: minimalBody() });
    // Assess
    expectError(overCreate, 403, 'campaign_limit_exceeded');
    expect(overCreate.body.error.message).toContain(`${open} campaigns that are not archived`);
    advanceClock(61); // the starter plan's rate limit is 20 requests a minute

    for (const id of ids.slice(0, active)) expect((await act(key, id, 'activate')).status).toBe(200);
    const overActivate = await act(key, ids[active]!, 'activate');
    expectError(overActivate, 403, 'campaign_limit_exceeded');
    expect(overActivate.body.error.message).toContain(`${active} active campaigns`);
    expect((await read(key, ids[active]!)).status).toBe('draft');

    // Pausing frees an active slot, and reactivating a paused campaign needs one (§3.1).
    expect((await act(key, ids[0]!, 'pause')).status).toBe(200);
    expect((await act(key, ids[active]!, 'activate')).status).toBe(200);
    expectError(await act(key, ids[0]!, 'activate'), 403, 'campaign_limit_exceeded');
    advanceClock(61);

    // Archiving or deleting frees a slot for creation.
    expect((await act(key, ids[0]!, 'archive')).status).toBe(200);
    expect((await call('POST', CAMPAIGNS, { key, body: minimalBody() })).status).toBe(201);
    expectError(await call('POST', CAMPAIGNS, { key, body: minimalBody() }), 403, 'campaign_limit_exceeded');
    expect((await call('DELETE', `${CAMPAIGNS}/${ids[open - 1]}`, { key })).status).toBe(200);
    expect((await call('POST', CAMPAIGNS, { key, body: minimalBody() })).status).toBe(201);
    expect(await campaignCounts(tenant)).toEqual({ open, active });
    await expectCountsConsistent(tenant);
  });

  it('holds the limit exactly under concurrent creations', async () => {
    // Prepare
    const { key, tenant } = await setUp('growth');
    const { open } = PLANS.growth.campaigns;
    for (let i = 0; i < open - 3; i++) await create(key, minimalBody(`Existing ${i}`));
    advanceClock(61);
    // Act
    const responses = await Promise.all(Array.from({ length: 8 }, (_, i) => call('POST', CAMPAIGNS, { key, body: minimalBody(`Raced ${i}`) })));
    // Assess
    const created = responses.filter((response) => response.status === 201);
    expect(created.length).toBeLessThanOrEqual(3);
    for (const response of responses.filter((r) => r.status !== 201)) {
      expect(['campaign_limit_exceeded', 'state_conflict']).toContain(response.body.error.code);
    }
    expect(responses.filter((response) => response.body.error?.code === 'campaign_limit_exceeded').length).toBeGreaterThanOrEqual(5);
    await expectCountsConsistent(tenant);
    expect((await campaignCounts(tenant)).open).toBe(open - 3 + created.length);
  }, 60_000);
});

describe('listing campaigns (§4.1)', () => {
  async function seed(key: string) {
    const specs: [string, string, 'draft' | 'active' | 'paused' | 'archived'][] = [
      ['bravo', 'payment_failed', 'active'],
      ['Alpha', 'card_expired', 'draft'],
      ['charlie', 'payment_failed', 'paused'],
      ['delta', 'manual', 'archived'],
      ['Echo', 'payment_failed', 'draft'],
    ];
    const ids: Record<string, string> = {};
    for (const [name, trigger, status] of specs) {
      const id = await create(key, { ...minimalBody(name), trigger });
      const path = { draft: [], active: ['activate'], paused: ['activate', 'pause'], archived: ['archive'] }[status] as ('activate' | 'pause' | 'archive')[];
      for (const action of path) await act(key, id, action);
      ids[name] = id;
      advanceClock(1);
    }
    return ids;
  }

  const names = (response: ApiResponse) => response.body.data.map((item: any) => item.name);

  it('lists newest first by default with the §4.1 item fields and pagination totals', async () => {
    // Prepare
    const { key } = await setUp();
    const ids = await seed(key);
    // Act
    const response = await call('GET', CAMPAIGNS, { key });
    // Assess
    expect(response.status).toBe(200);
    expect(names(response)).toEqual(['Echo', 'delta', 'charlie', 'Alpha', 'bravo']);
    expect(response.body.pagination).toEqual({ total: 5, page: 1, per_page: 20, total_pages: 1 });
    expect(response.body.data[4]).toEqual({
      id: ids.bravo,
      name: 'bravo',
      status: 'active',
      trigger: 'payment_failed',
      channels: ['email'],
      steps_count: 1,
      enrolled_count: 0,
      recovered_count: 0,
      recovery_rate: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it('filters by status and by trigger, together or apart', async () => {
    const { key } = await setUp();
    await seed(key);
    expect(names(await call('GET', CAMPAIGNS, { key, query: { status: 'draft' } }))).toEqual(['Echo', 'Alpha']);
    expect(names(await call('GET', CAMPAIGNS, { key, query: { trigger: 'payment_failed' } }))).toEqual(['Echo', 'charlie', 'bravo']);
    const both = await call('GET', CAMPAIGNS, { key, query: { trigger: 'payment_failed', status: 'paused' } });
    expect(names(both)).toEqual(['charlie']);
    expect(both.body.pagination.total).toBe(1);
    const none = await call('GET', CAMPAIGNS, { key, query: { status: 'archived', trigger: 'card_expired' } });
    expect(none.body).toEqual({ data: [], pagination: { total: 0, page: 1, per_page: 20, total_pages: 0 } });
  });

  it('sorts by name (case-insensitive), status (lifecycle order) and created_at, either way', async () => {
    const { key } = await setUp();
    await seed(key);
    const list = (query: Record<string, string>) => call('GET', CAMPAIGNS, { key, query }).then(names);
    expect(await list({ sort: 'name', order: 'asc' })).toEqual(['Alpha', 'bravo', 'charlie', 'delta', 'Echo']);
    expect(await list({ sort: 'name' })).toEqual(['Echo', 'delta', 'charlie', 'bravo', 'Alpha']);
    expect(await list({ sort: 'status', order: 'asc' })).toEqual(['Alpha', 'Echo', 'bravo', 'charlie', 'delta']);
    expect(await list({ sort: 'status', order: 'desc' })).toEqual(['delta', 'charlie', 'bravo', 'Echo', 'Alpha']);
    expect(await list({ sort: 'created_at', order: 'asc' })).toEqual(['bravo', 'Alpha', 'charlie', 'delta', 'Echo']);
  });

  it('pages through every campaign exactly once', async () => {
    // Prepare
    const { key } = await setUp();
    const created: string[] = [];
    for (let i = 0; i < 23; i++) {
      created.push(await create(key, minimalBody(`Campaign ${i}`)));
      advanceClock(1);
    }
    // Act
    const pages = await Promise.all([1, 2, 3].map((page) => call('GET', CAMPAIGNS, { key, query: { page: String(page), per_page: '10', order: 'asc' } })));
    // Assess
    expect(pages.map((page) => page.body.pagination)).toEqual([1, 2, 3].map((page) => ({ total: 23, page, per_page: 10, total_pages: 3 })));
    expect(pages.map((page) => page.body.data.length)).toEqual([10, 10, 3]);
    expect(pages.flatMap((page) => page.body.data.map((item: any) => item.id))).toEqual(created);
    const beyond = await call('GET', CAMPAIGNS, { key, query: { page: '4', per_page: '10' } });
    expect(beyond.body).toEqual({ data: [], pagination: { total: 23, page: 4, per_page: 10, total_pages: 3 } });
  });

  it.each([
    [{ status: 'deleted' }, 'status'],
    [{ trigger: 'sometimes' }, 'trigger'],
    [{ sort: 'updated_at' }, 'sort'],
    [{ order: 'up' }, 'order'],
    [{ per_page: '101' }, 'per_page'],
    [{ page: '0' }, 'page'],
    [{ limit: '5' }, 'limit'],
  ])('refuses query %o with 400 naming %s', async (query, param) => {
    const { key } = await setUp();
    expectError(await call('GET', CAMPAIGNS, { key, query }), 400, 'invalid_request', param);
  });

  it('lists only the caller tenant and environment', async () => {
    const mine = await setUp();
    const theirs = await setUp();
    await create(mine.key, minimalBody('mine'));
    await create(theirs.key, minimalBody('theirs'));
    await create(mine.keys.live_admin, minimalBody('mine live'));
    expect(names(await call('GET', CAMPAIGNS, { key: mine.key }))).toEqual(['mine']);
    expect(names(await call('GET', CAMPAIGNS, { key: mine.keys.live_admin }))).toEqual(['mine live']);
  });
});

describe('access (§5)', () => {
  it('lets a read key list and read campaigns, and nothing else', async () => {
    // Prepare
    const { key, keys } = await setUp();
    const id = await create(key);
    const readKey = keys.test_read;
    // Act + Assess
    expect((await call('GET', CAMPAIGNS, { key: readKey })).status).toBe(200);
    expect((await call('GET', `${CAMPAIGNS}/${id}`, { key: readKey })).status).toBe(200);
    const writes = [
      call('POST', CAMPAIGNS, { key: readKey, body: minimalBody() }),
      call('PUT', `${CAMPAIGNS}/${id}`, { key: readKey, body: { name: 'x' } }),
      act(readKey, id, 'activate'),
      act(readKey, id, 'pause'),
      act(readKey, id, 'archive'),
      call('DELETE', `${CAMPAIGNS}/${id}`, { key: readKey }),
    ];
    for (const response of await Promise.all(writes)) expectError(response, 403, 'insufficient_scope');
    expect((await read(key, id)).status).toBe('draft');
  });

  it('refuses publishable keys, and lets admin keys do everything', async () => {
    const { keys } = await setUp();
    expectError(await call('GET', CAMPAIGNS, { key: keys.pub }), 403, 'insufficient_scope');
    const id = await create(keys.test_admin);
    expect((await act(keys.test_admin, id, 'activate')).status).toBe(200);
  });

  it("answers 404 for another merchant's campaign, whatever the operation", async () => {
    const mine = await setUp();
    const theirs = await setUp();
    const id = await create(mine.key);
    const attempts = [
      call('GET', `${CAMPAIGNS}/${id}`, { key: theirs.key }),
      call('PUT', `${CAMPAIGNS}/${id}`, { key: theirs.key, body: { name: 'stolen' } }),
      act(theirs.key, id, 'activate'),
      act(theirs.key, id, 'archive'),
      call('DELETE', `${CAMPAIGNS}/${id}`, { key: theirs.key }),
    ];
    for (const response of await Promise.all(attempts)) expectError(response, 404, 'resource_not_found');
    expect(await read(mine.key, id)).toMatchObject({ status: 'draft', name: 'Dunning' });
  });

  it('answers 401 invalid_api_key for a campaign of the other environment (§5 rule 1)', async () => {
    const { key, keys } = await setUp();
    const testId = await create(key);
    const liveId = await create(keys.live_admin);
    const crossed = await call('GET', `${CAMPAIGNS}/${testId}`, { key: keys.live_admin });
    expectError(crossed, 401, 'invalid_api_key');
    expect(crossed.body.error.message).toContain('test mode');
    expectError(await act(key, liveId, 'activate'), 401, 'invalid_api_key');
    expectError(await call('DELETE', `${CAMPAIGNS}/${liveId}`, { key }), 401, 'invalid_api_key');
    expect((await read(keys.live_admin, liveId)).status).toBe('draft');
  });

  it('answers 404 for an id of any other shape: it names no campaign', async () => {
    const { key } = await setUp();
    expectError(await call('GET', `${CAMPAIGNS}/pay_01jd3k00000000000000000000`, { key }), 404, 'resource_not_found');
    const activated = await act(key, 'cmp_x', 'activate');
    expectError(activated, 404, 'resource_not_found');
    expect(activated.body.error.message).toBe("No such campaign: 'cmp_x'");
  });
});
