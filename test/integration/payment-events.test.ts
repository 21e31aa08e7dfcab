import { describe, expect, it } from 'vitest';
import { call, drainEvents, newMerchant, runDueJobs } from '../support/api.ts';
import { recordSuccess } from '../support/recovery-data.ts';
import { connect, GENERIC_SECRET, genericFailure, postGeneric } from '../support/webhooks.ts';

/** A hard decline messaged by a campaign, retried by hand (declined again), then paid at the processor (credited to the campaign). */
async function paymentWithHistory() {
  const merchant = await newMerchant();
  const path = await connect(merchant.keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
  const campaign = await call('POST', '/v1/campaigns', {
    key: merchant.keys.test_write,
    body: { name: 'Card problems', trigger: 'payment_failed', steps: [{ channel: 'email', template_id: 'tpl_update_payment_method', subject: 'Action needed', delay_hours: 0 }] },
  });
  expect((await call('POST', `/v1/campaigns/${campaign.body.data.id}/activate`, { key: merchant.keys.test_write })).status).toBe(200);
  // Another failure of the same customer: its events must not show in this payment's history.
  const failure = genericFailure({ code: 'expired_card', amount: 4200, currency: 'USD', lastFour: '0069' });
  const sibling = genericFailure({ code: 'insufficient_funds', customerId: failure.customer.id, email: failure.customer.email, lastFour: '0069' });
  const received = await postGeneric(path, failure);
  await postGeneric(path, sibling);
  await drainEvents();
  await runDueJobs();
  await drainEvents();
  const paymentId = received.body.payment_id as string;
  expect((await call('POST', `/v1/payments/${paymentId}/retry`, { key: merchant.keys.test_write })).status).toBe(200);
  await runDueJobs();
  await drainEvents();
  await recordSuccess(path, failure);
  await drainEvents();
  return { ...merchant, paymentId, campaignId: campaign.body.data.id as string, customerId: received.body.customer_id as string };
}

describe('GET /v1/payments/{id}/events', () => {
  it("tells the payment's story oldest first: failure, message, declined retry, recovery; nothing of its siblings", async () => {
    // Prepare
    const { keys, paymentId, campaignId, customerId } = await paymentWithHistory();
    // Act
    const response = await call('GET', `/v1/payments/${paymentId}/events`, { key: keys.test_read });
    // Assess
    expect(response.status).toBe(200);
    const events = response.body.data;
    expect(events.map((event: { type: string }) => event.type)).toEqual(['payment.failed', 'campaign.message_sent', 'payment.retry_failed', 'payment.recovered']);
    expect(response.body.pagination).toEqual({ total: 4, page: 1, per_page: 20, total_pages: 1 });
    expect(events[1].data).toEqual({ campaign_id: campaignId, enrollment_id: expect.stringMatching(/^enr_/), customer_id: customerId, payment_id: paymentId, step: 0, channel: 'email' });
    expect(events[2].data).toMatchObject({ id: paymentId, status: 'communication_pending', retry_count: 1, decline_code: 'expired_card' });
    expect(events[3].data).toMatchObject({ id: paymentId, status: 'recovered', recovery_channel: 'dunning_campaign' });
    const times = events.map((event: { created: string }) => event.created);
    expect([...times].sort()).toEqual(times);
  });

  it('pages, needs the read scope, answers 404 for an unknown payment and none once the customer is erased', async () => {
    // Prepare
    const { keys, paymentId, customerId } = await paymentWithHistory();
    // Act
    const second = await call('GET', `/v1/payments/${paymentId}/events`, { key: keys.test_read, query: { page: '2', per_page: '3' } });
    const hooksKey = (await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'hooks', scopes: ['webhooks'] } })).body.data.secret;
    const refused = await call('GET', `/v1/payments/${paymentId}/events`, { key: hooksKey });
    const unknown = await call('GET', '/v1/payments/pay_00000000000000000000000000/events', { key: keys.test_read });
    expect((await call('DELETE', `/v1/customers/${customerId}`, { key: keys.test_admin })).status).toBe(200);
    await drainEvents();
    const erased = await call('GET', `/v1/payments/${paymentId}/events`, { key: keys.test_read });
    // Assess
    expect(second.body.data.map((event: { type: string }) => event.type)).toEqual(['payment.recovered']);
    expect(second.body.pagination).toEqual({ total: 4, page: 2, per_page: 3, total_pages: 2 });
    expect(refused.status).toBe(403);
    expect(unknown.status).toBe(404);
    expect(erased).toMatchObject({ status: 200, body: { data: [], pagination: { total: 0 } } });
  });
});
