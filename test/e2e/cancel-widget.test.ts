/**
 * The cancel widget in a real browser (test/support/browser.ts: Debian's Chromium or the one in an npm
 * package, driven by playwright-core) against `npm start`: the demo page through a save and a churn,
 * each step scanned by axe-core, a merchant's own page on another origin (CORS), and the stored
 * outcome read back through the merchant API.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, seriousAccessibilityViolations, updateScreenshot } from '../support/browser.ts';
import { startLocalServer, type RunningServer } from '../support/local-server.ts';
import { flowBody } from '../support/cancel-flows.ts';
import { GENERIC_SECRET, genericFailure, genericSignature } from '../support/webhooks.ts';

let server: RunningServer;
let browser: Browser;
/** The seeded demo merchant's keys. */
let keys: Record<'test_admin' | 'test_read', string>;
const pages: Server[] = [];

async function api(path: string, key: string, init: { method?: string; body?: unknown } = {}) {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { Authorization: `Bearer ${key}`, ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** A customer the service knows, from a signed failed-payment webhook of a connected processor. */
async function knownSubscriber(adminKey: string, customerId: string): Promise<{ customerId: string; subscriptionId: string }> {
  const connected = await api('/v1/processors/acme', adminKey, { method: 'PUT', body: { webhook_secret: GENERIC_SECRET } });
  const event = genericFailure({ customerId });
  const body = JSON.stringify(event);
  const response = await fetch(connected.body.data.webhook_url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Recovery-Signature': genericSignature(body, GENERIC_SECRET, Math.floor(Date.now() / 1000)) },
    body,
  });
  expect(response.status).toBe(200);
  return { customerId: ((await response.json()) as any).customer_id, subscriptionId: event.subscription.id };
}

async function feedbackFor(readKey: string, externalCustomerId: string) {
  const listed = await api('/v1/cancel-feedback?per_page=100', readKey);
  return listed.body.data.find((record: { external_customer_id: string }) => record.external_customer_id === externalCustomerId);
}

/** A session's feedback once the background work is done (its completion queued, the offer applied by a consumer of the event stream). */
async function settledFeedback(readKey: string, externalCustomerId: string) {
  await server.dev('POST', 'run-due');
  return feedbackFor(readKey, externalCustomerId);
}

/** A merchant's own page on another origin, embedding the widget from the local server. */
async function merchantSite(attributes: Record<string, string>): Promise<string> {
  const tags = Object.entries(attributes)
    .map(([name, value]) => `data-${name}="${value}"`)
    .join(' ');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop account</title></head>
<body><h1>Shop account</h1><script src="${server.baseUrl}/cancel-widget.js" data-api="${server.baseUrl}" ${tags}></script></body></html>`;
  const site = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(html);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  pages.push(site);
  return `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startLocalServer(), launchBrowser()]);
  keys = server.credentials.keys as typeof keys;
});

afterAll(async () => {
  await browser?.close();
  for (const site of pages) site.close();
  await server?.stop();
});

describe('cancel widget in Chromium', () => {
  it('saves a subscriber on the demo page: survey, accepted offer, feedback stored and the offer applied', async () => {
    // Prepare
    const subscriber = await knownSubscriber(keys.test_admin, 'cust_e2e_save');
    const page = await browser.newPage({ viewport: { width: 1024, height: 800 } });
    await page.goto(`${server.baseUrl}/demo/cancel?customer=cust_e2e_save&subscription=${subscriber.subscriptionId}`);
    // Act
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Cancel subscription' }).click();
    const dialog = page.getByRole('dialog', { name: 'Before you go' });
    await dialog.waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('alert').filter({ hasText: 'Please choose a reason' }).waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.getByRole('radio', { name: 'It costs too much' }).check();
    await page.getByRole('radio', { name: 'My budget was cut' }).check();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'A special offer for you' }).waitFor();
    expect(await page.getByText('50% off for 3 months', { exact: true }).isVisible()).toBe(true);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await updateScreenshot(page, 'cancel-widget-offer-desktop');
    await page.getByRole('button', { name: 'Accept offer' }).click();
    // Assess
    await page.getByRole('heading', { name: 'Thanks for staying!' }).waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expect(await page.locator('#outcome').textContent()).toMatch(/^Cancel flow finished: saved \(session cfs_/);
    const feedback = await settledFeedback(keys.test_read, 'cust_e2e_save');
    expect(feedback).toMatchObject({
      outcome: 'saved',
      reason: 'too_expensive',
      sub_reason: 'budget_cut',
      customer_id: subscriber.customerId,
      external_subscription_id: subscriber.subscriptionId,
      offer: { offer_type: 'discount', percent_off: 50, duration_months: 3 },
      offer_application: { status: 'applied' },
    });
    expect(feedback.responses.map((response: { step_type: string }) => response.step_type)).toEqual(['survey', 'offer']);
    const outbox = ((await (await fetch(`${server.baseUrl}/__dev/outbox`)).json()) as any).data;
    expect(outbox).toContainEqual(expect.objectContaining({ channel: 'processor', to: `acme:${subscriber.subscriptionId}` }));
    await page.close();
  });

  it('churns with the keyboard alone on a phone-sized screen', async () => {
    // Prepare
    const subscriber = await knownSubscriber(keys.test_admin, 'cust_e2e_churn');
    const page = await browser.newPage({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    await page.goto(`${server.baseUrl}/demo/cancel?customer=cust_e2e_churn&subscription=${subscriber.subscriptionId}`);
    // Act
    await page.getByRole('button', { name: 'Cancel subscription' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Before you go' }).waitFor();
    await page.getByRole('radio', { name: 'It is missing features I need' }).focus();
    await page.keyboard.press('Space');
    await page.getByRole('textbox', { name: /Anything else/ }).waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.type('No API access');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await updateScreenshot(page, 'cancel-widget-survey-phone');
    const box = await page.locator('dialog').boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(360);
    await page.getByRole('button', { name: 'Continue' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'A special offer for you' }).waitFor();
    await page.getByRole('button', { name: 'No thanks, continue canceling' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Cancel your subscription?' }).waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await updateScreenshot(page, 'cancel-widget-confirm-phone');
    await page.getByRole('button', { name: 'Yes, cancel my subscription' }).focus();
    await page.keyboard.press('Enter');
    // Assess
    await page.getByRole('heading', { name: 'Your subscription is canceled' }).waitFor();
    // The live region is filled a moment after it is cleared (so repeats are announced): wait for the announcement.
    await page.getByRole('status').filter({ hasText: 'Your subscription is canceled.' }).waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    const feedback = await settledFeedback(keys.test_read, 'cust_e2e_churn');
    expect(feedback).toMatchObject({ outcome: 'churned', reason: 'missing_features', free_text: 'No API access', customer_id: subscriber.customerId });
    expect(feedback.responses.map((response: { step_type: string }) => response.step_type)).toEqual(['survey', 'offer', 'confirm']);
    expect(JSON.parse(feedback.responses[1].response_json)).toEqual({ accepted_offer: null });
    // Escape closes the dialog and gives focus back to the page's button.
    await page.keyboard.press('Escape');
    expect(await page.locator('dialog').evaluate((dialog) => (dialog as unknown as { open: boolean }).open)).toBe(false);
    await page.close();
  });

  it("runs a signed start on a merchant's own origin once its flow allows that origin, and not from any other", async () => {
    // Prepare: a merchant whose active test flow allows its shop's origin
    const made = await server.ops(['merchant', 'create', '--plan', 'growth']);
    const merchant = JSON.parse(made.stdout);
    // The shop's server signs the start for its signed-in subscriber, as the README shows.
    const secret = (await api('/v1/cancel-flows/signing-secret', merchant.keys.test_admin)).body.data.secret as string;
    const signed = {
      merchant: merchant.merchant_id,
      customer: 'shop_cust',
      subscription: 'shop_sub',
      'auth-hash': createHmac('sha256', secret).update('shop_cust:shop_sub').digest('hex'),
      environment: 'test',
    };
    const blocked = await merchantSite(signed);
    const shop = await merchantSite(signed);
    const created = await api('/v1/cancel-flows', merchant.keys.test_write, { method: 'POST', body: flowBody({ allowed_origins: [shop] }) });
    await api(`/v1/cancel-flows/${created.body.data.id}/activate`, merchant.keys.test_write, { method: 'POST' });
    const page = await browser.newPage();
    // Act / Assess: from the shop, the whole flow works across origins.
    await page.goto(shop);
    await page.getByRole('button', { name: 'Cancel subscription' }).click();
    await page.getByRole('radio', { name: 'Too expensive' }).check();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'No thanks, continue canceling' }).click();
    await page.getByRole('button', { name: 'Keep my subscription' }).click();
    await page.getByRole('heading', { name: 'Thanks for staying!' }).waitFor();
    expect((await feedbackFor(merchant.keys.test_read, 'shop_cust'))?.outcome).toBe('saved');
    // From another origin the browser refuses to let the page read the answers.
    await page.goto(blocked);
    await page.getByRole('button', { name: 'Cancel subscription' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'could not reach the service' });
    await alert.waitFor();
    expect(await page.getByRole('radio').count()).toBe(0);
    await page.close();
  });
});
