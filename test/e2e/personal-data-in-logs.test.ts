import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalServer, type RunningServer } from '../support/local-server.ts';
import { genericSignature } from '../support/webhooks.ts';
import { RECURRING_JOBS } from '../../shared/jobs.ts';

/**
 * The check that logs carry no personal data: a whole recovery through `npm start` with the
 * most verbose logging (metric lines included), for a customer whose email, name and phone number
 * appear nowhere else, then the server's own output is searched for them.
 */
const SECRET = 'e2e-logs-secret-0123456789abcdef';
const tag = randomUUID().slice(0, 8);
const PERSON = {
  email: `wilhelmina.quackenbush.${tag}@example.org`,
  firstName: 'Wilhelmina',
  lastName: `Quackenbush${tag}`,
  phone: '+447700900123',
};

let server: RunningServer;
let stopped = false;

beforeAll(async () => {
  server = await startLocalServer({ LOG_LEVEL: 'debug' });
});

afterAll(async () => {
  if (!stopped) await server?.stop();
});

/** A merchant API (or dev route) request with the demo merchant's test admin key. */
const request = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => server.api(method, path, body, headers);

/** A processor's webhook: no API key, the signature is the credential. */
function postWebhook(path: string, body: string, signature: string) {
  return server.send('POST', path, body, { 'Content-Type': 'application/json', 'X-Recovery-Signature': signature });
}

/** What the local adapters have sent to the person (run-due answers once the due work, the timer's round included, is done). */
async function sentTo(address: string) {
  const { body } = await request('GET', '/__dev/outbox');
  return (body.data as { to: string; channel: string }[]).filter((entry) => entry.to === address);
}

function failure(): string {
  return JSON.stringify({
    id: `evt_logs_${tag}`,
    type: 'payment.failed',
    created: Math.floor(Date.now() / 1000),
    customer: { id: `cust_logs_${tag}`, email: PERSON.email, name: `${PERSON.firstName} ${PERSON.lastName}`, phone: PERSON.phone, timezone: 'Europe/London' },
    payment: { id: `chg_logs_${tag}`, amount: 4900, currency: 'GBP', decline_code: 'expired_card' },
    payment_method: { type: 'card', brand: 'visa', last_four: '0069', exp_month: 1, exp_year: 2030 },
  });
}

describe('logs of a whole recovery', () => {
  it('never contain the customer’s email, name or phone number, while every line carries request id and route', async () => {
    // Prepare: a processor connection and a campaign that emails, then texts
    const connected = await request('PUT', '/v1/processors/acme', { webhook_secret: SECRET });
    expect(connected.status).toBe(200);
    const webhook = new URL(connected.body.data.webhook_url).pathname;
    const steps = [
      { channel: 'email', template_id: 'tpl_update_payment_method', subject: 'Your card needs updating', delay_hours: 1 },
      { channel: 'sms', template_id: 'tpl_update_payment_method', delay_hours: 1 },
    ];
    const campaign = await request('POST', '/v1/campaigns', { name: `Card problems ${tag}`, trigger: 'payment_failed', steps }, { 'Idempotency-Key': `logs-${tag}` });
    expect(campaign.status).toBe(201);
    expect((await request('POST', `/v1/campaigns/${campaign.body.data.id}/activate`)).status).toBe(200);

    // Act: ingest, read the customer every way, be refused with their data in the request, dun them, erase them
    const body = failure();
    const ingested = await postWebhook(webhook, body, genericSignature(body, SECRET, Math.floor(Date.now() / 1000)));
    expect(ingested.body).toMatchObject({ received: true, outcome: 'created' });
    const customerId: string = ingested.body.customer_id;
    const paymentId: string = ingested.body.payment_id;
    // Deliver the failure's events before searching (the index follows the stream) and before time moves (enrolling the customer, so the first step is due in an hour).
    await request('POST', '/__dev/run-due');
    expect((await request('GET', `/v1/customers?query=${encodeURIComponent(PERSON.email)}`)).body.data).toEqual([expect.objectContaining({ id: customerId })]);
    expect((await request('GET', `/v1/customers/${customerId}`)).body.data).toMatchObject({ email: PERSON.email });
    expect((await request('GET', `/v1/payments/${paymentId}`)).body.data.customer).toMatchObject({ email: PERSON.email });
    expect((await request('GET', `/v1/customers/${customerId}/payments`)).status).toBe(200);
    expect((await request('POST', '/v1/campaigns', { name: PERSON.email, trigger: PERSON.phone, steps: [] })).status).toBe(422);
    expect((await postWebhook(webhook, body, 't=1,v1=00')).status).toBe(400);
    expect((await request('POST', '/__dev/clock', { advance_seconds: 3601 })).status).toBe(200);
    await request('POST', '/__dev/run-due');
    expect((await sentTo(PERSON.email)).map((entry) => entry.channel)).toEqual(['email']);
    expect((await request('POST', '/__dev/clock', { advance_seconds: 3601 })).status).toBe(200);
    await request('POST', '/__dev/run-due');
    expect((await sentTo(PERSON.phone)).map((entry) => entry.channel)).toEqual(['sms']);
    expect((await request('DELETE', `/v1/customers/${customerId}`)).status).toBe(200);
    await request('POST', '/__dev/run-due');
    // Stopped first, so everything the server wrote has reached the pipe.
    await server.stop();
    stopped = true;
    const output = server.output();

    // Assess: the person appears nowhere
    const haystack = output.toLowerCase();
    for (const needle of [PERSON.email, PERSON.email.split('@')[0]!, PERSON.firstName, PERSON.lastName, PERSON.phone, PERSON.phone.slice(3)]) {
      expect(haystack.includes(needle.toLowerCase()), `log output contains '${needle}'`).toBe(false);
    }

    // Assess: logs were really captured, and every line can be traced
    const lines = output.split('\n').flatMap((text) => {
      try {
        const parsed = JSON.parse(text) as unknown;
        return typeof parsed === 'object' && parsed !== null ? [parsed as Record<string, any>] : [];
      } catch {
        return [];
      }
    });
    const logLines = lines.filter((line) => typeof line.level === 'string');
    const metricLines = lines.filter((line) => line._aws !== undefined);
    for (const line of [...logLines, ...metricLines]) {
      expect(line.request_id, JSON.stringify(line)).toEqual(expect.any(String));
      expect(line.route, JSON.stringify(line)).toEqual(expect.any(String));
    }
    const merchantId = server.credentials.merchant_id;
    const routes = new Set([...logLines, ...metricLines].map((line) => line.route as string));
    for (const route of ['POST /webhooks/{psp}/{connection_id}', 'GET /v1/customers', 'GET /v1/customers/{id}', 'DELETE /v1/customers/{id}', 'job campaign-step', 'stream events']) {
      expect(routes, route).toContain(route);
    }
    // Authenticated requests, webhooks of a known connection, jobs and events all name the merchant; a
    // recurring sweep works across every tenant, so it names none.
    const acrossTenants = new Set(RECURRING_JOBS.map((job) => `job ${job.name}`));
    for (const line of [...logLines, ...metricLines].filter((line) => !acrossTenants.has(line.route))) expect(line.merchant_id, JSON.stringify(line)).toBe(merchantId);
    expect(metricLines.map((line) => line._aws.CloudWatchMetrics[0].Metrics[0].Name)).toEqual(expect.arrayContaining(['FailureIngested', 'DunningMessageSent', 'JobLag']));
  });
});
