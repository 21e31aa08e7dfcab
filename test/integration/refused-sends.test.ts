import { afterAll, describe, expect, it, vi } from 'vitest';

// The refusal warnings are what this test reads; the suite otherwise logs errors only. Set before
// the log module is imported, as it reads the level once.
const previousLevel = vi.hoisted(() => {
  const level = process.env.LOG_LEVEL;
  process.env.LOG_LEVEL = 'warn';
  return level;
});

import { runtime } from '../../shared/runtime.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { useMetricSink } from '../../shared/metrics.ts';
import { enrollmentResource } from '../../shared/representations/enrollment.ts';
import { enrollmentSchema } from '../../shared/representations/schemas/enrollment.ts';
import { findEnrollment, type EnrollmentRef } from '../../shared/store/enrollments.ts';
import { advanceClock, call, drainEvents, newMerchant, runDueJobs } from '../support/api.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { connect, GENERIC_SECRET, genericFailure, postGeneric } from '../support/webhooks.ts';
import { captureLogLines } from '../support/log-lines.ts';
import { localRuntime } from '../../bin/local/local-runtime.ts';

afterAll(() => {
  process.env.LOG_LEVEL = previousLevel;
});

/**
 * Sends the provider refuses for good, through the local adapters' reserved recipients
 * (docs/testing.md, "Refused recipients"): email at reject.invalid, sms to +44 7700 900900-900999.
 */
const STEPS = [
  { channel: 'email', template_id: 'tpl_update_payment_method', subject: 'Action needed', delay_hours: 1 },
  { channel: 'sms', template_id: 'tpl_update_payment_method', delay_hours: 24 },
  { channel: 'email', template_id: 'tpl_payment_failed', subject: 'Last reminder', delay_hours: 48 },
];

function failureOf(email: string | undefined, phone: string) {
  const failure = genericFailure({ code: 'expired_card', ...(email === undefined ? {} : { email }) });
  return { ...failure, customer: { ...failure.customer, phone } };
}

describe('a campaign step the provider refuses for good', () => {
  it('is recorded on the enrollment as recipient_rejected, does not count toward max_attempts, and is logged without the address', async () => {
    // Prepare: two messages at most; one customer whose email is refused, one whose phone is.
    const merchant = await newMerchant();
    const tenant: Tenant = { merchantId: merchant.merchantId, environment: 'test' };
    const path = await connect(merchant.keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
    const created = await call('POST', '/v1/campaigns', {
      key: merchant.keys.test_write,
      body: { name: 'Card problems', trigger: 'payment_failed', steps: STEPS, stop_conditions: { max_attempts: 2 } },
    });
    expect(created.status).toBe(201);
    expect((await call('POST', `/v1/campaigns/${created.body.data.id}/activate`, { key: merchant.keys.test_write })).status).toBe(200);
    // +447700900899 is just below the refused range, so its sms goes out.
    const emailRefused = failureOf(`ada.${Date.now()}@reject.invalid`, '+447700900899');
    const phoneRefused = failureOf(undefined, '+447700900999');
    expect((await postGeneric(path, emailRefused)).status).toBe(200);
    expect((await postGeneric(path, phoneRefused)).status).toBe(200);
    await drainEvents();
    const lines = captureLogLines('stdout');
    const metricLines: string[] = [];
    const previousSink = useMetricSink((line) => metricLines.push(line));

    // Act: 73 hours, every step coming due on the way.
    const runs = [];
    try {
      for (let hour = 0; hour < 73; hour++) {
        advanceClock(3600);
        runs.push(...(await runDueJobs()));
        await drainEvents();
      }
    } finally {
      vi.restoreAllMocks();
      useMetricSink(previousSink);
    }

    // Assess: no job failed, so the scheduler retries nothing.
    const steps = runs.filter((run) => run.kind === 'campaign-step');
    expect(steps).toHaveLength(6);
    expect(steps.filter((run) => run.outcome !== 'succeeded')).toEqual([]);
    // Assess: what went out; the refused phone's customer still got the third step, so the refusal did not count.
    const addresses = [emailRefused.customer.email, emailRefused.customer.phone, phoneRefused.customer.email, phoneRefused.customer.phone];
    const sent = localRuntime().outbox.entries().filter((entry) => addresses.includes(entry.to));
    expect(sent.map((entry) => [entry.to, entry.channel, entry.content.subject])).toEqual([
      [phoneRefused.customer.email, 'email', 'Action needed'],
      [emailRefused.customer.phone, 'sms', undefined],
      [phoneRefused.customer.email, 'email', 'Last reminder'],
    ]);
    // Assess: the enrollments say which steps were refused.
    const customers = await tenantItems(tenant, 'CUSTOMER#');
    const enrollments = await tenantItems(tenant, 'ENROLLMENT#');
    const enrollmentOf = (email: string) => enrollments.find((enrollment) => enrollment.customer_id === customers.find((customer) => customer.email === email)?.id)!;
    const ofEmailRefused = enrollmentOf(emailRefused.customer.email);
    const ofPhoneRefused = enrollmentOf(phoneRefused.customer.email);
    expect(ofEmailRefused).toMatchObject({
      status: 'completed',
      messages_sent: 1,
      last_sent_step: 1,
      skipped_steps: [
        { step: 0, reason: 'recipient_rejected', at: expect.any(String) },
        { step: 2, reason: 'recipient_rejected', at: expect.any(String) },
      ],
    });
    expect(ofPhoneRefused).toMatchObject({ status: 'completed', messages_sent: 2, last_sent_step: 2, skipped_steps: [{ step: 1, reason: 'recipient_rejected', at: expect.any(String) }] });
    const messageEvents = (await tenantItems(tenant, 'EVENT#')).filter((event) => event.type === 'campaign.message_sent');
    expect(messageEvents.map((event) => event.data.channel).sort()).toEqual(['email', 'email', 'sms']);
    // Assess: the API representation carries them, as documented.
    const stored = await findEnrollment(tenant, ofEmailRefused as EnrollmentRef);
    const resource = enrollmentResource(stored!);
    expect(enrollmentSchema.parse(resource).skipped_steps).toEqual(ofEmailRefused.skipped_steps);
    // Assess: one warning per refused step, with ids and the provider's code and never the address
    // (not even scrubbed: no placeholder in the line means none was there to scrub).
    const refusals = lines.filter((line) => line.includes('refused by the provider'));
    const warning = (channel: string, reference: string, providerCode: string) =>
      expect.objectContaining({ level: 'warn', route: 'job campaign-step', merchant_id: tenant.merchantId, channel, reference, refusal: 'recipient_rejected', provider_code: providerCode });
    expect(refusals.map((line) => JSON.parse(line))).toEqual([
      warning('email', `${ofEmailRefused.id}#0`, 'LocalOutbox/REFUSED_TEST_DOMAIN'),
      warning('sms', `${ofPhoneRefused.id}#1`, 'LocalOutbox/REFUSED_TEST_RANGE'),
      warning('email', `${ofEmailRefused.id}#2`, 'LocalOutbox/REFUSED_TEST_DOMAIN'),
    ]);
    for (const line of refusals) expect(line).not.toMatch(/\[email\]|\[phone\]/);
    // Assess: each refused step counted once, by channel and reason (the alarm reads the reason alone).
    const skipped = metricLines.map((line) => JSON.parse(line)).filter((line) => line.DunningStepSkipped !== undefined && line.merchant_id === tenant.merchantId);
    expect(skipped.map((line) => [line.Channel, line.Reason, line.step])).toEqual([
      ['email', 'recipient_rejected', `${ofEmailRefused.id}#0`],
      ['sms', 'recipient_rejected', `${ofPhoneRefused.id}#1`],
      ['email', 'recipient_rejected', `${ofEmailRefused.id}#2`],
    ]);
    for (const line of metricLines) expect(line, 'a metric line names no address').not.toMatch(/reject\.invalid|\+4477009009/);
    for (const address of addresses) expect(lines.some((line) => line.includes(address!)), address).toBe(false);
  });
});
