import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalServer, type RunningServer } from '../support/local-server.ts';

/**
 * The local email and sms adapters as a client sees them: everything over HTTP against `npm start`
 * (without its timer, so time moves only when the test says), the merchant's payment-update link
 * set with the operator CLI.
 */
let server: RunningServer;
const SECRET = 'e2e-dunning-secret-0123456789';
const UPDATE_URL = 'https://billing.acme.example/update?source=dunning';

beforeAll(async () => {
  server = await startLocalServer({}, ['--no-timer']);
});

afterAll(async () => {
  await server?.stop();
});

const api = (method: string, path: string, body?: unknown) => server.api(method, path, body);
const dev = (method: string, path: string, body?: unknown) => server.dev(method, path, body);

const serverNow = async (): Promise<Date> => new Date((await dev('GET', 'clock')).now);
const advance = (seconds: number) => dev('POST', 'clock', { advance_seconds: seconds });
const runDue = () => dev('POST', 'run-due');

/** What the local adapters sent to one recipient, oldest first. */
async function sentTo(address: string): Promise<{ channel: string; to: string; at: string; content: Record<string, any> }[]> {
  return (await dev('GET', 'outbox')).data.filter((entry: { to: string }) => entry.to === address);
}

/** Posts a generic processor event signed at the server's clock, as the processor would sign it. */
async function deliver(webhookUrl: string, event: Record<string, unknown>) {
  const t = Math.floor((await serverNow()).getTime() / 1000);
  const body = JSON.stringify({ ...event, created: t });
  const signature = createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex');
  const response = await fetch(webhookUrl, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Recovery-Signature': `t=${t},v1=${signature}` }, body });
  expect(response.status).toBe(200);
  return (await response.json()) as any;
}

describe('dunning through the local email and sms adapters', () => {
  it('sends each step on time with the rendered amount, name and link, and stops at the recovery', async () => {
    // Prepare: the link, a processor, and an email + sms campaign.
    const merchantId = server.credentials.merchant_id;
    const refused = await server.ops(['merchant', 'update', merchantId, '--payment-update-url', 'http://billing.acme.example/update']);
    expect(refused.code).toBe(2);
    const refusal = JSON.parse(refused.stderr.split('\n').find((line) => line.startsWith('{'))!);
    expect(refusal.error).toEqual({ code: 'usage', message: 'payment update URL must be an https URL' });
    const updated = await server.ops(['merchant', 'update', merchantId, '--payment-update-url', UPDATE_URL]);
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout).payment_update_url).toBe(UPDATE_URL);
    const connected = await api('PUT', '/v1/processors/acme', { webhook_secret: SECRET });
    expect(connected.status).toBe(200);
    const created = await api('POST', '/v1/campaigns', {
      name: 'Card declined',
      trigger: 'payment_failed',
      steps: [
        { channel: 'email', template_id: 'tpl_update_payment_method', subject: 'Action needed: your {merchant} payment', delay_hours: 1 },
        { channel: 'sms', template_id: 'tpl_update_payment_method', delay_hours: 24 },
        { channel: 'email', template_id: 'tpl_payment_failed', subject: 'Last reminder', delay_hours: 48 },
      ],
    });
    expect(created.status).toBe(201);
    const campaignId = created.body.data.id;
    expect((await api('POST', `/v1/campaigns/${campaignId}/activate`)).status).toBe(200);
    const email = `ada.${Date.now()}@example.com`;
    const phone = '+14155550123';
    const failure = {
      id: `evt_e2e_${Date.now()}`,
      type: 'payment.failed',
      customer: { id: `cust_e2e_${Date.now()}`, email, name: 'Ada Lovelace', phone },
      subscription: { id: 'subx_e2e', plan: 'pro', amount: 4900, currency: 'usd', status: 'past_due' },
      payment: { id: `ch_e2e_${Date.now()}`, amount: 4900, currency: 'usd', decline_code: 'expired_card' },
      payment_method: { type: 'card', brand: 'visa', last_four: '0341', exp_month: 1, exp_year: 2026 },
    };

    // Act: the failure arrives and its event is delivered (enrolling the customer).
    const posted = await deliver(connected.body.data.webhook_url, failure);
    expect(posted.outcome).toBe('created');
    const enrolledFrom = await serverNow();
    await runDue();
    const enrolledBy = await serverNow();

    // Assess: nothing before the first step's hour, then exactly the email.
    await advance(3600 - 120);
    await runDue();
    expect(await sentTo(email)).toEqual([]);
    await advance(240);
    const ran = (await runDue()).ran.filter((run: { kind: string }) => run.kind === 'campaign-step');
    expect(ran).toEqual([expect.objectContaining({ outcome: 'succeeded' })]);
    const [first, ...none] = await sentTo(email);
    expect(none).toEqual([]);
    expect(first).toMatchObject({ channel: 'email', to: email, content: { subject: 'Action needed: your Demo merchant payment' } });
    expect(first!.content.text).toBe(
      [
        'Hi Ada Lovelace,',
        '',
        'We could not collect your payment of $49.00 to Demo merchant. Your card can no longer be charged. Please add a new payment method.',
        '',
        `Update your payment method: ${UPDATE_URL}`,
        '',
        '--',
        'You are receiving this because of a payment for your Demo merchant subscription. This is a service message about your account.',
      ].join('\n'),
    );
    expect(first!.content.html).toContain(`<a href="${UPDATE_URL.replace('&', '&amp;')}">Update your payment method</a>`);
    const firstAt = Date.parse(first!.at);
    expect(firstAt).toBeGreaterThanOrEqual(enrolledFrom.getTime() + 3600_000);
    expect(firstAt).toBeLessThan(enrolledBy.getTime() + 3600_000 + 240_000);

    // The sms 24 hours after the email, not before.
    await advance(24 * 3600 - 120);
    await runDue();
    expect(await sentTo(phone)).toEqual([]);
    await advance(240);
    await runDue();
    const [sms, ...moreSms] = await sentTo(phone);
    expect(moreSms).toEqual([]);
    expect(sms).toMatchObject({
      channel: 'sms',
      to: phone,
      content: {
        body: `Demo merchant: your payment of $49.00 failed. Your card can no longer be charged. Please add a new payment method. ${UPDATE_URL}`,
      },
    });
    expect(Date.parse(sms!.at) - firstAt).toBeGreaterThanOrEqual(24 * 3600_000);

    // The customer pays: the last email never goes out.
    const paid = await deliver(connected.body.data.webhook_url, { ...failure, id: `${failure.id}_paid`, type: 'payment.succeeded' });
    expect(paid.outcome).toBe('updated');
    await runDue();
    await advance(72 * 3600);
    await runDue();
    expect((await sentTo(email)).map((message) => message.content.subject)).toEqual(['Action needed: your Demo merchant payment']);
    expect(await sentTo(phone)).toHaveLength(1);
    const campaign = await api('GET', `/v1/campaigns/${campaignId}`);
    expect(campaign.body.data.stats).toMatchObject({ enrolled_count: 1, active_count: 0, recovered_count: 1, total_recovered_amount: 4900, currency: 'usd' });
  });

  it('runs the daily calendar scan when the clock passes a day, and mails the card-expiring reminder with the link', async () => {
    // Prepare: a card_expiring campaign, and a customer (failed once, since paid) whose card expires next month.
    const created = await api('POST', '/v1/campaigns', {
      name: 'Card expiring',
      trigger: 'card_expiring',
      steps: [{ channel: 'email', template_id: 'tpl_card_expiring', subject: 'Your card expires soon', delay_hours: 0 }],
    });
    expect((await api('POST', `/v1/campaigns/${created.body.data.id}/activate`)).status).toBe(200);
    const processors = await api('GET', '/v1/processors');
    const webhookUrl = processors.body.data.find((connection: { psp: string }) => connection.psp === 'acme').webhook_url;
    const now = await serverNow();
    const next = now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
    const card = { exp_month: (next % 12) + 1, exp_year: Math.floor(next / 12) };
    const email = `grace.${Date.now()}@example.com`;
    const failure = {
      id: `evt_e2e_cal_${Date.now()}`,
      type: 'payment.failed',
      customer: { id: `cust_e2e_cal_${Date.now()}`, email, name: 'Grace Hopper' },
      subscription: { id: 'subx_e2e_cal', plan: 'pro', amount: 1900, currency: 'usd', status: 'active', current_period_end: new Date(now.getTime() + 20 * 86_400_000).toISOString() },
      payment: { id: `ch_e2e_cal_${Date.now()}`, amount: 1900, currency: 'usd', decline_code: 'expired_card' },
      payment_method: { type: 'card', brand: 'mastercard', last_four: '4444', ...card },
    };
    await deliver(webhookUrl, failure);
    await deliver(webhookUrl, { ...failure, id: `${failure.id}_paid`, type: 'payment.succeeded' });
    await runDue();
    // Act
    await advance(86_400);
    const ran = (await runDue()).ran as { kind: string; outcome: string }[];
    // Assess
    expect(ran.filter((run) => run.kind === 'calendar-sweep' || run.kind === 'calendar-scan').map((run) => [run.kind, run.outcome])).toEqual([
      ['calendar-sweep', 'succeeded'],
      ['calendar-scan', 'succeeded'],
    ]);
    const month = new Date(Date.UTC(card.exp_year, card.exp_month - 1, 1)).toLocaleDateString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
    const [reminder, ...rest] = await sentTo(email);
    expect(rest).toEqual([]);
    expect(reminder).toMatchObject({ channel: 'email', content: { subject: 'Your card expires soon' } });
    expect(reminder!.content.text).toBe(
      [
        'Hi Grace Hopper,',
        '',
        `Your Mastercard card ending in 4444, which pays for your Demo merchant subscription ($19.00), expires at the end of ${month}. Please update your card before your next renewal so your subscription continues.`,
        '',
        `Update your payment method: ${UPDATE_URL}`,
        '',
        '--',
        'You are receiving this because of a payment for your Demo merchant subscription. This is a service message about your account.',
      ].join('\n'),
    );
    await advance(86_400);
    await runDue();
    expect(await sentTo(email)).toHaveLength(1);
  });
});
