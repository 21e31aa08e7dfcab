/**
 * The card-update page in Chromium against `npm start` (no timer: time moves when the test says): a
 * hard decline, the dunning email in the outbox, its personal link, the branded page, a test-mode card
 * given with the keyboard alone, and what follows: the payment recovered through `card_update`, the
 * sequence stopped, customer.payment_method_updated delivered to the merchant's endpoint.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, seriousAccessibilityViolations, updateScreenshot } from '../support/browser.ts';
import { startLocalServer, type RunningServer } from '../support/local-server.ts';

const SECRET = 'e2e-card-update-secret-0123456789';

let server: RunningServer;
let browser: Browser;
let sink: Server;
const received: { type: string; data: Record<string, unknown> }[] = [];

beforeAll(async () => {
  sink = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  [server, browser] = await Promise.all([startLocalServer({}, ['--no-timer']), launchBrowser()]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), server?.stop(), new Promise((resolve) => sink?.close(resolve))]);
});

const api = (method: string, path: string, body?: unknown) => server.api(method, path, body);
const runDue = () => server.dev('POST', 'run-due');

async function deliver(webhookUrl: string, event: Record<string, unknown>) {
  const t = Math.floor(new Date((await server.dev('GET', 'clock')).now).getTime() / 1000);
  const body = JSON.stringify({ ...event, created: t });
  const signature = createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex');
  const response = await fetch(webhookUrl, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Recovery-Signature': `t=${t},v1=${signature}` }, body });
  expect(response.status).toBe(200);
  return (await response.json()) as { payment_id: string; customer_id: string };
}

/** Fires due jobs and delivers events until `done` holds (each round may schedule the next: a step, a retry, a delivery). */
async function settle(done: () => Promise<boolean>): Promise<void> {
  for (let round = 0; round < 10; round++) {
    await runDue();
    if (await done()) return;
  }
  throw new Error('the expected outcome never came');
}

describe('the card-update page', () => {
  it('takes a hard decline from the dunning email to a recovered payment, with the keyboard alone', async () => {
    // Prepare: branding, a processor, a campaign mailing at once, an endpoint for the new event.
    expect((await api('PUT', '/v1/settings/branding', { name: 'Acme Streaming', accent_color: '#0f766e', support_email: 'help@acme.example' })).status).toBe(200);
    const connected = await api('PUT', '/v1/processors/acme', { webhook_secret: SECRET });
    const campaign = await api('POST', '/v1/campaigns', {
      name: 'Card declined',
      trigger: 'payment_failed',
      steps: [
        { channel: 'email', template_id: 'tpl_update_payment_method', subject: 'Please update your card for {merchant}', delay_hours: 0 },
        { channel: 'email', template_id: 'tpl_payment_failed', subject: 'Last reminder', delay_hours: 48 },
      ],
    });
    expect(campaign.status, JSON.stringify(campaign.body)).toBe(201);
    expect((await api('POST', `/v1/campaigns/${campaign.body.data.id}/activate`)).status).toBe(200);
    const { port } = sink.address() as AddressInfo;
    const endpoint = await api('POST', '/v1/webhooks', { url: `http://127.0.0.1:${port}/hooks`, events: ['customer.payment_method_updated'] });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    const email = `grace.${Date.now()}@example.com`;

    // Act: a hard decline; its dunning email goes out.
    const failure = await deliver(connected.body.data.webhook_url, {
      id: `evt_cu_${Date.now()}`,
      type: 'payment.failed',
      customer: { id: `cust_cu_${Date.now()}`, email, name: 'Grace Hopper' },
      subscription: { id: 'sub_cu', plan: 'Pro plan', amount: 4900, currency: 'usd', status: 'past_due' },
      payment: { id: `ch_cu_${Date.now()}`, amount: 4900, currency: 'usd', decline_code: 'expired_card' },
      payment_method: { type: 'card', brand: 'visa', last_four: '0341', exp_month: 1, exp_year: 2026 },
    });
    let message: { content: { text: string; html: string } } | undefined;
    await settle(async () => {
      message = (await server.dev('GET', 'outbox')).data.find((entry: { to: string }) => entry.to === email);
      return message !== undefined;
    });
    const link = /(http:\/\/\S+\/update\/[A-Za-z0-9_-]{22})/.exec(message!.content.text)?.[1];
    expect(link, message!.content.text).toBeDefined();
    expect(message!.content.html).toContain(`href="${link}"`);

    // The page: branded, the amount and plan, test mode said plainly, no serious accessibility problem.
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const opened = await page.goto(link!);
    expect(opened!.status()).toBe(200);
    expect(opened!.headers()['content-security-policy']).toContain("default-src 'none'");
    await expect.poll(() => page.locator('h1').innerText()).toContain('Acme Streaming');
    const text = await page.locator('main').innerText();
    expect(text).toContain('$49.00');
    expect(text).toContain('Pro plan');
    expect(text).toContain('Test mode');
    expect(text).toContain('help@acme.example');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await updateScreenshot(page, 'card-update', { fullPage: true });
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    await phone.goto(link!);
    expect(await phone.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth')).toBe(true);
    await updateScreenshot(phone, 'card-update-phone', { fullPage: true });
    await phone.close();

    // A wrong number first, with the keyboard: the error is on its field and said aloud.
    await page.keyboard.press('Tab'); // the support link comes after the form; the first stop is the card number
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('number');
    await page.keyboard.type('4242 4242 4242 4241');
    await page.keyboard.press('Tab');
    await page.keyboard.type('12/30');
    await page.keyboard.press('Tab');
    await page.keyboard.type('123');
    await page.keyboard.press('Enter');
    await page.waitForLoadState();
    const number = page.locator('#number');
    await expect.poll(() => number.getAttribute('aria-invalid')).toBe('true');
    expect(await number.getAttribute('aria-describedby')).toContain('number-error');
    expect(await page.locator('#number-error').innerText()).toContain('card number is incorrect');
    expect(await page.evaluate('document.activeElement?.id')).toBe('number');
    expect(await page.locator('#expiry').inputValue()).toBe('12/30');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    // The sandbox's success number: the card is updated.
    await page.keyboard.type('4242 4242 4242 4242');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.type('123');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('[role=status]').innerText()).toContain('your card is updated');

    // Assess: the retry runs, the payment is recovered by the card update, the sequence stopped, the merchant told.
    await settle(async () => (await api('GET', `/v1/payments/${failure.payment_id}`)).body.data.status === 'recovered');
    const history = (await api('GET', `/v1/payments/${failure.payment_id}/events`)).body.data;
    expect(history.find((event: { type: string }) => event.type === 'payment.recovered').data).toMatchObject({ status: 'recovered', recovery_channel: 'card_update' });
    const customer = (await api('GET', `/v1/customers/${failure.customer_id}`)).body.data;
    expect(customer.payment_method).toMatchObject({ brand: 'visa', last_four: '4242', exp_month: 12, exp_year: 2030 });
    const enrollments = (await api('GET', `/v1/customers/${failure.customer_id}/enrollments`)).body.data;
    expect(enrollments).toEqual([expect.objectContaining({ status: 'stopped', stop_reason: 'card_updated' })]);
    await settle(async () => received.some((event) => event.type === 'customer.payment_method_updated'));
    const updated = received.find((event) => event.type === 'customer.payment_method_updated')!;
    expect(updated.data).toMatchObject({ id: failure.customer_id, payment_method: { last_four: '4242' }, source: 'card_update_page' });
    const analytics = (await api('GET', '/v1/analytics/campaigns')).body.data;
    expect(analytics.card_update_funnel).toEqual({ links_sent: 1, pages_opened: 1, cards_updated: 1, payments_recovered: 1 });
    await page.close();
  });

  it('reads on a phone and at 200% zoom, and an unknown link is a friendly page', async () => {
    // Prepare: the link the first test's email carried.
    const links = (await server.dev('GET', 'outbox')).data
      .map((entry: { content: { text?: string } }) => /(http:\/\/\S+\/update\/[A-Za-z0-9_-]{22})/.exec(entry.content.text ?? '')?.[1])
      .filter(Boolean);
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const zoomed = await browser.newPage({ viewport: { width: 640, height: 400 } });
    // Act
    await phone.goto(links.at(-1));
    await zoomed.goto(links.at(-1));
    await zoomed.evaluate("document.documentElement.style.fontSize = '200%'");
    const unknown = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const answer = await unknown.goto(`${server.baseUrl}/update/AAAAAAAAAAAAAAAAAAAAAA`);
    // Assess
    for (const view of [phone, zoomed]) {
      expect(await view.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth')).toBe(true);
    }
    expect(answer!.status()).toBe(404);
    expect(answer!.headers()['content-type']).toContain('text/html');
    expect(await unknown.locator('h1').innerText()).toBe('This link has expired');
    expect(await seriousAccessibilityViolations(unknown)).toEqual([]);
    await Promise.all([phone.close(), zoomed.close(), unknown.close()]);
  });
});
