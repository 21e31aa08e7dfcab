import { describe, expect, it, vi } from 'vitest';
import { runtime } from '../../shared/runtime.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { advanceClock, call, drainEvents, newMerchant, runDueJobs } from '../support/api.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { connect, GENERIC_SECRET, genericFailure, postGeneric } from '../support/webhooks.ts';
import { localRuntime } from '../../bin/local/local-runtime.ts';

/**
 * A deployment without sms context (no smsOriginationIdentity): the sms channel is the adapter AWS
 * mode builds then, which refuses every send; email stays the local outbox.
 */
vi.mock('../../shared/composition/messaging.ts', async (importOriginal) => {
  const { UnconfiguredChannel } = await import('../../shared/adapters/channel-config.ts');
  return { ...(await importOriginal<typeof import('../../shared/composition/messaging.ts')>()), smsSender: new UnconfiguredChannel('sms', 'SMS_ORIGINATION_IDENTITY') };
});

const STEPS = [
  { channel: 'email', template_id: 'tpl_update_payment_method', subject: 'Action needed', delay_hours: 1 },
  { channel: 'sms', template_id: 'tpl_update_payment_method', delay_hours: 24 },
  { channel: 'email', template_id: 'tpl_payment_failed', subject: 'Last reminder', delay_hours: 48 },
];

describe('a campaign step on a channel the deployment was not given', () => {
  it('is recorded on the enrollment as channel_unavailable, without failing the job, and the sequence goes on', async () => {
    // Prepare: an email + sms campaign, one customer with a phone and one without.
    const merchant = await newMerchant();
    const tenant: Tenant = { merchantId: merchant.merchantId, environment: 'test' };
    const path = await connect(merchant.keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
    const created = await call('POST', '/v1/campaigns', { key: merchant.keys.test_write, body: { name: 'Card problems', trigger: 'payment_failed', steps: STEPS } });
    expect(created.status).toBe(201);
    const campaignId: string = created.body.data.id;
    expect((await call('POST', `/v1/campaigns/${campaignId}/activate`, { key: merchant.keys.test_write })).status).toBe(200);
    const withPhone = genericFailure({ code: 'expired_card' });
    const withoutPhone = genericFailure({ code: 'expired_card' });
    expect((await postGeneric(path, { ...withPhone, customer: { ...withPhone.customer, phone: '+4915112345678' } })).status).toBe(200);
    expect((await postGeneric(path, withoutPhone)).status).toBe(200);
    await drainEvents();

    // Act: 73 hours, every step coming due on the way.
    const runs = [];
    for (let hour = 0; hour < 73; hour++) {
      advanceClock(3600);
      runs.push(...(await runDueJobs()));
      await drainEvents();
    }

    // Assess
    const steps = runs.filter((run) => run.kind === 'campaign-step');
    expect(steps).toHaveLength(6);
    expect(steps.filter((run) => run.outcome !== 'succeeded')).toEqual([]);
    const sent = localRuntime().outbox.entries().filter((entry) => [withPhone.customer.email, withoutPhone.customer.email, '+4915112345678'].includes(entry.to));
    expect(sent.map((entry) => [entry.to, entry.channel, entry.content.subject])).toEqual([
      [withPhone.customer.email, 'email', 'Action needed'],
      [withoutPhone.customer.email, 'email', 'Action needed'],
      [withPhone.customer.email, 'email', 'Last reminder'],
      [withoutPhone.customer.email, 'email', 'Last reminder'],
    ]);
    const enrollments = await tenantItems(tenant, 'ENROLLMENT#');
    const customerIds = Object.fromEntries((await tenantItems(tenant, 'CUSTOMER#')).map((customer) => [customer.email, customer.id]));
    const enrollmentOf = (email: string) => enrollments.find((enrollment) => enrollment.customer_id === customerIds[email]);
    expect(enrollmentOf(withPhone.customer.email)).toMatchObject({
      status: 'completed',
      messages_sent: 2,
      last_sent_step: 2,
      skipped_steps: [{ step: 1, reason: 'channel_unavailable', at: expect.any(String) }],
    });
    expect(enrollmentOf(withoutPhone.customer.email)).toMatchObject({
      status: 'completed',
      messages_sent: 2,
      skipped_steps: [{ step: 1, reason: 'no_address', at: expect.any(String) }],
    });
    const messageEvents = (await tenantItems(tenant, 'EVENT#')).filter((event) => event.type === 'campaign.message_sent');
    expect(messageEvents.map((event) => event.data.channel)).toEqual(['email', 'email', 'email', 'email']);
  });
});
