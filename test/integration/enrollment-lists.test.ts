import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { runtime } from '../../shared/runtime.ts';
import { campaignSk } from '../../shared/store/campaigns.ts';
import { tenantKey } from '../../shared/store/keys.ts';
import { requestCounter } from '../support/dynamodb-requests.ts';
import { advanceClock, call, drainEvents, newMerchant, runDueJobs } from '../support/api.ts';
import { readAllPages, recordSuccess } from '../support/recovery-data.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { connect, GENERIC_SECRET, genericFailure, postGeneric } from '../support/webhooks.ts';

const STEPS = [
  { channel: 'email', template_id: 'tpl_update_payment_method', subject: 'Action needed', delay_hours: 1 },
  { channel: 'email', template_id: 'tpl_payment_failed', subject: 'Last reminder', delay_hours: 48 },
];

let merchant: Awaited<ReturnType<typeof newMerchant>>;
let campaignA: string;
let campaignB: string;
/** Ada: two hard failures a minute apart, each enrolled in both campaigns; her address is refused. */
let ada: string;
/** Bob: one hard failure between Ada's two, enrolled in both campaigns, then recovered. */
let bob: string;

async function activeCampaign(name: string): Promise<string> {
  const created = await call('POST', '/v1/campaigns', { key: merchant.keys.test_write, body: { name, trigger: 'payment_failed', steps: STEPS } });
  expect(created.status).toBe(201);
  expect((await call('POST', `/v1/campaigns/${created.body.data.id}/activate`, { key: merchant.keys.test_write })).status).toBe(200);
  return created.body.data.id;
}

async function failHard(path: string, event: ReturnType<typeof genericFailure>): Promise<string> {
  const response = await postGeneric(path, event);
  expect(response.status).toBe(200);
  await drainEvents();
  return response.body.customer_id;
}

beforeAll(async () => {
  merchant = await newMerchant();
  const path = await connect(merchant.keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
  campaignA = await activeCampaign('Card problems');
  campaignB = await activeCampaign('Card problems, second opinion');
  const unique = Math.random().toString(36).slice(2, 10);
  ada = await failHard(path, genericFailure({ code: 'expired_card', customerId: `cust_ada_${unique}`, email: `ada.${unique}@reject.invalid` }));
  advanceClock(60);
  const bobFailure = genericFailure({ code: 'expired_card', customerId: `cust_bob_${unique}` });
  bob = await failHard(path, bobFailure);
  advanceClock(60);
  await failHard(path, genericFailure({ code: 'expired_card', customerId: `cust_ada_${unique}`, email: `ada.${unique}@reject.invalid` }));
  // The first step comes due: Ada's address is refused, so each of her enrollments records a skipped step.
  advanceClock(3600);
  await runDueJobs();
  await drainEvents();
  await recordSuccess(path, bobFailure);
  await drainEvents();
  expect((await call('POST', `/v1/campaigns/${campaignB}/archive`, { key: merchant.keys.test_write })).status).toBe(200);
  // The archive's sweep: the event log queues it, the job removes the enrollments.
  await drainEvents();
  await runDueJobs();
}, 60_000);

const list = (path: string, query: Record<string, string> = {}, key = merchant.keys.test_read) => call('GET', path, { key, query });
const summary = (enrollment: Record<string, any>) => `${enrollment.campaign_id === campaignA ? 'A' : 'B'}:${enrollment.status}`;

describe('GET /v1/customers/{id}/enrollments', () => {
  it("lists the customer's enrollments in every campaign, newest first, as stored, with the skipped steps", async () => {
    // Act
    const response = await list(`/v1/customers/${ada}/enrollments`);
    // Assess
    expect(response.status).toBe(200);
    const { data, pagination } = response.body;
    expect(pagination).toEqual({ total: 4, page: 1, per_page: 20, total_pages: 1 });
    expect(data.every((enrollment: Record<string, any>) => enrollment.customer_id === ada && enrollment.object === 'enrollment')).toBe(true);
    const enrolledAt = data.map((enrollment: Record<string, any>) => enrollment.enrolled_at);
    expect(enrolledAt).toEqual([...enrolledAt].sort().reverse());
    expect(new Set(data.map((enrollment: Record<string, any>) => enrollment.payment_id)).size).toBe(2);
    expect(data.map(summary).sort()).toEqual(['A:active', 'A:active', 'B:removed', 'B:removed']);
    for (const enrollment of data) {
      expect(enrollment.skipped_steps).toEqual([{ step: 0, reason: 'recipient_rejected', at: expect.any(String) }]);
    }
    const stored = (await tenantItems({ merchantId: merchant.merchantId, environment: 'test' }, `ENROLLMENT#${ada}#`)).map((item) => item.id);
    expect([...data.map((enrollment: Record<string, any>) => enrollment.id)].sort()).toEqual([...stored].sort());
  });

  it('filters by status and pages through the rest', async () => {
    const removed = await list(`/v1/customers/${ada}/enrollments`, { status: 'removed' });
    expect(removed.body.data.map(summary)).toEqual(['B:removed', 'B:removed']);
    expect(removed.body.data.map((enrollment: Record<string, any>) => enrollment.stop_reason)).toEqual(['archived', 'archived']);
    const completed = await list(`/v1/customers/${ada}/enrollments`, { status: 'completed' });
    expect(completed.body).toEqual({ data: [], pagination: { total: 0, page: 1, per_page: 20, total_pages: 0 } });
    const all = (await list(`/v1/customers/${ada}/enrollments`)).body.data.map((enrollment: Record<string, any>) => enrollment.id);
    const paged = await readAllPages(merchant.keys.test_read, `/v1/customers/${ada}/enrollments`, {}, 3);
    expect(paged).toEqual({ ids: all, total: 4 });
  });

  it('answers 404 for an unknown or foreign customer, 401 across environments, 400 for an unknown status', async () => {
    const other = await newMerchant();
    const foreign = await list(`/v1/customers/${ada}/enrollments`, {}, other.keys.test_read);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('resource_not_found');
    expect((await list('/v1/customers/cus_00000000000000000000000000/enrollments')).status).toBe(404);
    const live = await list(`/v1/customers/${ada}/enrollments`, {}, merchant.keys.live_admin);
    expect(live.status).toBe(401);
    expect(live.body.error.code).toBe('invalid_api_key');
    const invalid = await list(`/v1/customers/${ada}/enrollments`, { status: 'paused' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.param).toBe('status');
  });
});

describe('GET /v1/campaigns/{id}/enrollments', () => {
  it("lists the campaign's enrollments across statuses, newest first, and pages through them", async () => {
    // Act
    const response = await list(`/v1/campaigns/${campaignA}/enrollments`);
    // Assess: Ada's second, Bob's (stopped on recovery), Ada's first.
    expect(response.status).toBe(200);
    const { data, pagination } = response.body;
    expect(pagination).toEqual({ total: 3, page: 1, per_page: 20, total_pages: 1 });
    expect(data.map((enrollment: Record<string, any>) => [enrollment.customer_id, enrollment.status, enrollment.stop_reason])).toEqual([
      [ada, 'active', null],
      [bob, 'stopped', 'recovered'],
      [ada, 'active', null],
    ]);
    expect(data.every((enrollment: Record<string, any>) => enrollment.campaign_id === campaignA)).toBe(true);
    const paged = await readAllPages(merchant.keys.test_read, `/v1/campaigns/${campaignA}/enrollments`, {}, 1);
    expect(paged).toEqual({ ids: data.map((enrollment: Record<string, any>) => enrollment.id), total: 3 });
  });

  it('filters by status, newest first', async () => {
    const active = await list(`/v1/campaigns/${campaignA}/enrollments`, { status: 'active' });
    expect(active.body.pagination.total).toBe(2);
    const enrolledAt = active.body.data.map((enrollment: Record<string, any>) => enrollment.enrolled_at);
    expect(enrolledAt).toEqual([...enrolledAt].sort().reverse());
    const secondPage = await list(`/v1/campaigns/${campaignA}/enrollments`, { status: 'active', per_page: '1', page: '2' });
    expect(secondPage.body.data.map((enrollment: Record<string, any>) => enrollment.id)).toEqual([active.body.data[1].id]);
    // Archiving removed Ada's; Bob's had already stopped on his recovery.
    const removed = await list(`/v1/campaigns/${campaignB}/enrollments`, { status: 'removed' });
    expect(removed.body.data.map((enrollment: Record<string, any>) => enrollment.customer_id)).toEqual([ada, ada]);
    const stopped = await list(`/v1/campaigns/${campaignB}/enrollments`, { status: 'stopped' });
    expect(stopped.body.data.map((enrollment: Record<string, any>) => [enrollment.customer_id, enrollment.stop_reason])).toEqual([[bob, 'recovered']]);
    expect((await list(`/v1/campaigns/${campaignB}/enrollments`, { status: 'active' })).body.pagination.total).toBe(0);
  });

  it("takes its totals from the campaign's counters: the list reads the page, not every enrollment", async () => {
    // Prepare: what the counters hold for the archived campaign (two removed, one stopped).
    const tenant = { merchantId: merchant.merchantId, environment: 'test' as const };
    const [campaign] = (await tenantItems(tenant, 'CAMPAIGN#')).filter((item) => item.entity === 'campaign' && item.id === campaignB);
    expect(campaign).toMatchObject({ enrolled_count: 3, active_count: 0, completed_count: 0, stopped_count: 1, removed_count: 2 });
    const counter = requestCounter(runtime.db);
    try {
      // Act
      const all = await list(`/v1/campaigns/${campaignB}/enrollments`);
      const allRequests = counter.count;
      counter.reset();
      const removed = await list(`/v1/campaigns/${campaignB}/enrollments`, { status: 'removed', per_page: '1', page: '2' });
      // Assess: the rate limit, the campaign and one query across statuses; no counting query.
      expect(all.body.pagination.total).toBe(3);
      expect(allRequests).toBeLessThanOrEqual(3);
      expect(removed.body.pagination).toEqual({ total: 2, page: 2, per_page: 1, total_pages: 2 });
      expect(removed.body.data).toHaveLength(1);
      expect(counter.count).toBeLessThanOrEqual(3);
    } finally {
      counter.stop();
    }
  });

  it('counts the index for a campaign from before the ended enrollments were counted', async () => {
    // Prepare: campaign B as an older campaign item has it, without the ended counters.
    const tenant = { merchantId: merchant.merchantId, environment: 'test' as const };
    const before = await list(`/v1/campaigns/${campaignB}/enrollments`);
    const beforeRemoved = await list(`/v1/campaigns/${campaignB}/enrollments`, { status: 'removed' });
    await runtime.db.send(
      new UpdateCommand({
        TableName: runtime.tableName,
        Key: tenantKey(tenant, campaignSk(campaignB)),
        UpdateExpression: 'REMOVE completed_count, stopped_count, removed_count',
      }),
    );
    // Act
    const after = await list(`/v1/campaigns/${campaignB}/enrollments`);
    const afterRemoved = await list(`/v1/campaigns/${campaignB}/enrollments`, { status: 'removed' });
    // Assess
    expect(after.body).toEqual(before.body);
    expect(afterRemoved.body).toEqual(beforeRemoved.body);
    expect(after.body.pagination.total).toBe(3);
  });

  it('answers 404 for an unknown or foreign campaign', async () => {
    const other = await newMerchant();
    const foreign = await list(`/v1/campaigns/${campaignA}/enrollments`, {}, other.keys.test_read);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('resource_not_found');
    expect((await list('/v1/campaigns/cmp_00000000000000000000000000/enrollments')).status).toBe(404);
  });
});
