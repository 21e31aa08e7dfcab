/**
 * The merchant dashboard in Chromium against `npm start`: data made by signed processor webhooks and
 * the dev clock, then signed in through the printed link, checked against the API it is built on,
 * acted on (a retry, an erasure), looked at with a read key, walked by keyboard and scanned by
 * axe-core. UPDATE_SCREENSHOTS=1 rewrites docs/screenshots/.
 */
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, seriousAccessibilityViolations, updateScreenshot } from '../support/browser.ts';
import { startLocalServer, type RunningServer } from '../support/local-server.ts';
import { genericFailure, genericSignature } from '../support/webhooks.ts';

const SECRET = 'dashboard-e2e-secret-0123456789';
/** First-load JavaScript budget, gzipped (issue 24). */
const BUDGET_BYTES = 200 * 1024;

let server: RunningServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let admin: string;
let signInLink: string;
const ids: Record<'soft' | 'hard' | 'messaged' | 'terminal' | 'erasable' | 'campaign', string> = {} as never;

async function api(path: string, init: { method?: string; body?: unknown; key?: string } = {}) {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { Authorization: `Bearer ${init.key ?? admin}`, ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

const dev = async (path: string, body?: unknown) =>
  (await fetch(`${server.baseUrl}/__dev/${path}`, { method: body === undefined && path !== 'run-due' ? 'GET' : 'POST', body: body === undefined ? undefined : JSON.stringify(body) })).json() as Promise<any>;

/** A failed payment as the processor reports it: a signed webhook at the service clock's time. */
async function failure(webhookUrl: string, overrides: Parameters<typeof genericFailure>[0] & { name?: string }) {
  const event = genericFailure(overrides);
  if (overrides.name) event.customer.name = overrides.name;
  const body = JSON.stringify(event);
  const now = Math.floor(Date.parse((await dev('clock')).now) / 1000);
  const response = await fetch(webhookUrl, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Recovery-Signature': genericSignature(body, SECRET, now) }, body });
  expect(response.status).toBe(200);
  return ((await response.json()) as any).payment_id as string;
}

const screenshot = (name: string, target: Page = page) => updateScreenshot(target, name, { fullPage: true });

/**
 * A new tab: signed out until signed in, since the key is kept per tab (sessionStorage). Tabs, not
 * browser contexts: Chromium runs as one process here, and closing a context ends it.
 */
async function newTab(viewport = { width: 1280, height: 900 }): Promise<Page> {
  const tab = await context.newPage();
  await tab.setViewportSize(viewport);
  return tab;
}

async function signedInPage(link = signInLink, viewport?: { width: number; height: number }): Promise<Page> {
  const tab = await newTab(viewport);
  await tab.goto(link);
  await tab.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  return tab;
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startLocalServer(), launchBrowser()]);
  admin = server.credentials.keys.test_admin!;
  signInLink = /"dashboard_sign_in": "([^"]+)"/.exec(server.output())![1]!;
  // Prepare: a processor, a two-step campaign, and failures of every kind.
  const connected = await api('/v1/processors/acme', { method: 'PUT', body: { webhook_secret: SECRET } });
  const hook = connected.body.data.webhook_url;
  const campaign = await api('/v1/campaigns', {
    method: 'POST',
    body: {
      name: 'Card problems',
      trigger: 'payment_failed',
      steps: [
        { channel: 'email', template_id: 'tpl_update_payment_method', subject: 'Your payment did not go through', delay_hours: 0 },
        { channel: 'email', template_id: 'tpl_payment_failed', subject: 'A reminder about your payment', delay_hours: 24 },
      ],
    },
  });
  ids.campaign = campaign.body.data.id;
  expect((await api(`/v1/campaigns/${ids.campaign}/activate`, { method: 'POST' })).status).toBe(200);
  ids.soft = await failure(hook, { code: 'insufficient_funds', amount: 2500, currency: 'EUR', lastFour: '4242' });
  ids.hard = await failure(hook, { code: 'expired_card', amount: 4000, currency: 'EUR', lastFour: '4242', name: 'Hedy Lamarr' });
  ids.messaged = await failure(hook, { code: 'expired_card', amount: 1800, currency: 'USD', lastFour: '0069' });
  ids.terminal = await failure(hook, { code: 'stolen_card', amount: 5000, currency: 'JPY' });
  ids.erasable = await failure(hook, { code: 'insufficient_funds', amount: 900, currency: 'USD', email: 'erin.erasable@example.com', name: 'Erin Erasable', lastFour: '9995' });
  // Delivered before time moves, so the customers are enrolled (and their first step sent) today, not 12 hours on.
  await dev('run-due');
  // A day and a half later: dunning's first step went out, the second is due; retries wait for their cooldown.
  for (let hour = 0; hour < 36; hour += 12) {
    await dev('clock', { advance_seconds: 12 * 3600 });
    await dev('run-due');
  }
  await dev('run-due');
  context = await browser.newContext({ locale: 'en-US', timezoneId: 'America/New_York', viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('merchant dashboard in Chromium', () => {
  it('keeps the first load under the JavaScript budget', async () => {
    // Act: what the browser fetches for /dashboard/ before any view loads: the scripts index.html names.
    const html = await (await fetch(`${server.baseUrl}/dashboard/`)).text();
    const scripts = [...html.matchAll(/<(?:script|link)[^>]+(?:src|href)="([^"]+\.js)"/g)].map((match) => match[1]!);
    let gzipped = 0;
    for (const script of scripts) gzipped += gzipSync(Buffer.from(await (await fetch(new URL(script, server.baseUrl))).arrayBuffer())).length;
    // Assess
    expect(scripts.length).toBeGreaterThan(0);
    console.log(`dashboard first-load JavaScript: ${scripts.length} file(s), ${(gzipped / 1024).toFixed(1)} KB gzipped (budget ${BUDGET_BYTES / 1024} KB)`);
    expect(gzipped).toBeLessThan(BUDGET_BYTES);
  });

  it('signs in through the printed link: the key leaves the address bar and stays in this tab only', async () => {
    // Act
    await page.goto(signInLink);
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    // Assess
    expect(signInLink).toMatch(/\/dashboard\/#key=svc_test_/);
    expect(page.url()).toBe(`${server.baseUrl}/dashboard/`);
    const stored = await page.evaluate('({ session: Object.values(sessionStorage), local: Object.keys(localStorage).length })');
    expect(stored).toEqual({ session: [admin], local: 0 });
    expect(await page.getByRole('note').textContent()).toContain('Test mode');
    const headers = (await fetch(`${server.baseUrl}/dashboard/`)).headers;
    expect(headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it("shows the overview's recovered amounts and rate as GET /v1/analytics/recovery answers them, with charts of every day", async () => {
    // Prepare
    await page.goto(`${server.baseUrl}/dashboard/?days=30`);
    await page.locator('[data-metric="recovery_rate"]').waitFor();
    const from = await page.locator('input[name="from"]').inputValue();
    const to = await page.locator('input[name="to"]').inputValue();
    // Act
    const { body } = await api(`/v1/analytics/recovery?from=${from}&to=${to}`);
    // Assess
    expect(body.data.totals.failed_count).toBe(5);
    expect(Number(await page.locator('[data-metric="recovery_rate"]').getAttribute('data-value'))).toBe(body.data.totals.recovery_rate);
    for (const report of body.data.currencies) {
      const shown = page.locator(`[data-metric="recovered_amount"][data-currency="${report.currency}"]`);
      expect(Number(await shown.getAttribute('data-value'))).toBe(report.recovered.amount);
      expect(await shown.textContent()).toBe(new Intl.NumberFormat('en-US', { style: 'currency', currency: report.currency.toUpperCase() }).format(report.recovered.amount / (report.currency === 'jpy' ? 1 : 100)));
    }
    const charts = page.locator('figure.chart');
    expect(await charts.count()).toBe(2);
    for (const chart of await charts.all()) {
      expect(await chart.getAttribute('data-points')).toBe('30');
      expect(await chart.locator('canvas').count()).toBeGreaterThan(0);
      expect(await chart.locator('details tbody tr').count()).toBe(30);
    }
    await screenshot('overview');
  });

  it("shows a payment's timeline and retries it from the page: its status changes", async () => {
    // Prepare
    await page.goto(`${server.baseUrl}/dashboard/payments?status=communication_pending&currency=eur`);
    await page.getByRole('link', { name: '€40.00' }).click();
    await page.getByRole('heading', { name: /€40\.00/ }).waitFor();
    expect(await page.getByRole('list', { name: 'Payment timeline' }).textContent()).toContain('Dunning email sent');
    await screenshot('payment-timeline');
    // Act: the retry runs as a job; running the due work now, not on the timer's next round, bounds the wait.
    const retried = page.waitForResponse((response) => response.url().endsWith(`/v1/payments/${ids.hard}/retry`));
    await page.getByRole('button', { name: 'Retry now' }).click();
    expect((await retried).status()).toBe(200);
    await dev('run-due');
    // Assess: the sandbox charges a card ending 4242, and the page follows the attempt to its outcome.
    await page.locator('h1 .badge-recovered').waitFor();
    expect((await api(`/v1/payments/${ids.hard}`)).body.data.status).toBe('recovered');
    expect(await page.getByRole('list', { name: 'Payment timeline' }).textContent()).toContain('Recovered');
    expect(await page.getByRole('button', { name: 'Retry now' }).isDisabled()).toBe(true);
  });

  it("shows a campaign's steps with what each sent and recovered", async () => {
    // Prepare: the campaign analytics are kept by a consumer of the event stream: deliver what is committed, then read them (the service clock's last 30 days).
    await dev('run-due');
    const { body } = await api('/v1/analytics/campaigns');
    const report = body.data.campaigns.find((campaign: { campaign_id: string }) => campaign.campaign_id === ids.campaign);
    // Act
    await page.goto(`${server.baseUrl}/dashboard/campaigns`);
    await page.getByRole('link', { name: 'Card problems' }).click();
    await page.getByRole('heading', { name: 'Steps and their funnel' }).waitFor();
    // Assess
    const sent = await page.locator('[data-step-metric="messages_sent"]').allTextContents();
    expect(sent.map(Number)).toEqual([0, 1].map((step) => report.steps.find((entry: { step: number }) => entry.step === step)?.messages_sent ?? 0));
    expect(Number(sent[0])).toBeGreaterThan(0);
    await screenshot('campaign-steps');
  });

  it("shows the API's validation error next to the field it names, and creates the campaign once it is fixed", async () => {
    // Prepare
    await page.goto(`${server.baseUrl}/dashboard/campaigns/new`);
    await page.getByLabel('Name', { exact: true }).fill('Win-back');
    await page.getByLabel('Template').fill('tpl_payment_failed');
    await page.getByLabel('Email subject').fill('We miss you');
    await page.getByLabel('Delay (hours)').fill('-5');
    // Act
    await page.getByRole('button', { name: 'Create draft campaign' }).click();
    // Assess: the summary links to the field, and the field carries the API's message.
    const summary = page.getByRole('alert').filter({ hasText: 'There is a problem' });
    await summary.waitFor();
    expect(await summary.getByRole('link').getAttribute('href')).toBe('#field-steps-0-delay_hours');
    expect(await page.locator('#field-steps-0-delay_hours-error').textContent()).toMatch(/steps\.0\.delay_hours/);
    await page.getByLabel('Delay (hours)').fill('0');
    await page.getByRole('button', { name: 'Create draft campaign' }).click();
    await page.getByRole('heading', { name: /Win-back/ }).waitFor();
    expect(await page.locator('h1 .badge-draft').count()).toBe(1);
  });

  it('erases a customer behind a typed confirmation: they are gone from search', async () => {
    // Prepare
    await page.goto(`${server.baseUrl}/dashboard/customers?query=erin.erasable%40example.com`);
    await page.getByRole('link', { name: 'Erin Erasable' }).click();
    const erase = page.getByRole('button', { name: 'Erase customer' });
    expect(await erase.isDisabled()).toBe(true);
    const customerId = (await page.locator('.facts code').first().textContent())!;
    // Act
    await page.getByLabel(/to confirm/).fill(customerId);
    await erase.click();
    // Assess
    await page.getByText(`Customer ${customerId} was erased`).waitFor();
    await page.getByLabel('Search', { exact: true }).fill('erin.erasable@example.com');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No customer matches.').waitFor();
    expect((await api('/v1/customers?query=erin.erasable%40example.com')).body.pagination.total).toBe(0);
    expect((await api(`/v1/customers/${customerId}`)).status).toBe(404);
  });

  it('shows a read key every write action disabled, with the reason', async () => {
    // Prepare: a read-only key, typed into the sign-in form.
    const issued = await api('/v1/api-keys', { method: 'POST', body: { name: 'looker', scopes: ['read'] } });
    const tab = await newTab();
    await tab.goto(`${server.baseUrl}/dashboard/payments/${ids.messaged}`);
    await tab.getByLabel('API key').fill(issued.body.data.secret);
    await tab.keyboard.press('Enter');
    // Act
    await tab.getByRole('heading', { name: /\$18\.00/ }).waitFor();
    // Assess
    const retry = tab.getByRole('button', { name: 'Retry now' });
    expect(await retry.isDisabled()).toBe(true);
    expect(await tab.locator('.reason').first().textContent()).toContain('“write”');
    await tab.goto(`${server.baseUrl}/dashboard/campaigns/${ids.campaign}`);
    for (const name of ['Activate', 'Pause', 'Archive']) expect(await tab.getByRole('button', { name }).isDisabled()).toBe(true);
    expect(await tab.getByText(/Edit: Your API key lacks/).count()).toBe(1);
    await tab.goto(`${server.baseUrl}/dashboard/campaigns`);
    expect(await tab.getByRole('link', { name: 'New campaign' }).count()).toBe(0);
    await tab.close();
  });

  it('can be used with the keyboard alone through the main views', async () => {
    // Prepare
    const tab = await signedInPage();
    /** Tabs (forward, or back to the header after a navigation moved focus to the content) until the named element has focus. */
    const tabTo = async (name: string | RegExp, key: 'Tab' | 'Shift+Tab' = 'Tab') => {
      for (let presses = 0; presses < 80; presses++) {
        await tab.keyboard.press(key);
        const focused = String(await tab.evaluate("document.activeElement?.innerText?.trim() ?? ''"));
        if (typeof name === 'string' ? focused === name : name.test(focused)) return;
      }
      throw new Error(`Tab never reached ${name}`);
    };
    // Act and assess: the skip link first, then every section and into a payment.
    await tab.keyboard.press('Tab');
    expect(await tab.evaluate('document.activeElement?.textContent?.trim()')).toBe('Skip to content');
    await tabTo('Customers');
    await tab.keyboard.press('Enter');
    await tab.getByRole('heading', { name: 'Customers', level: 1 }).waitFor();
    for (const section of ['Campaigns', 'Cancel flows', 'Developers', 'Overview', 'Payments']) {
      await tabTo(section, 'Shift+Tab');
      await tab.keyboard.press('Enter');
      await tab.getByRole('heading', { name: section, level: 1 }).waitFor();
    }
    await tab.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
    await tabTo('¥5,000');
    await tab.keyboard.press('Enter');
    await tab.getByRole('heading', { name: /¥5,000/ }).waitFor();
    await tabTo('Sign out', 'Shift+Tab');
    await tab.keyboard.press('Enter');
    await tab.getByRole('heading', { name: 'Sign in to the recovery dashboard' }).waitFor();
    expect(await tab.evaluate('sessionStorage.length')).toBe(0);
    await tab.close();
  });

  it('has no serious or critical accessibility violation on any view', async () => {
    // Prepare
    const customers = await api(`/v1/customers?per_page=1`);
    const views = [
      '/dashboard/',
      '/dashboard/payments',
      `/dashboard/payments/${ids.soft}`,
      '/dashboard/customers',
      `/dashboard/customers/${customers.body.data[0].id}`,
      '/dashboard/campaigns',
      `/dashboard/campaigns/${ids.campaign}`,
      '/dashboard/campaigns/new',
      '/dashboard/cancel-flows',
      '/dashboard/developers',
      '/dashboard/no-such-page',
    ];
    const found: Record<string, string[]> = {};
    // Act
    for (const view of views) {
      await page.goto(`${server.baseUrl}${view}`);
      await page.locator('h1').first().waitFor();
      await expect.poll(() => page.locator('.loading').count()).toBe(0);
      const violations = await seriousAccessibilityViolations(page);
      if (violations.length > 0) found[view] = violations.map((violation) => `${violation.rule}: ${violation.targets[0]}`);
    }
    const signIn = await newTab();
    await signIn.goto(`${server.baseUrl}/dashboard/`);
    await signIn.getByLabel('API key').waitFor();
    const signInViolations = await seriousAccessibilityViolations(signIn);
    if (signInViolations.length > 0) found['sign-in'] = signInViolations.map((violation) => violation.rule);
    // Assess
    expect(found).toEqual({});
  });

  it('fits a phone: the overview at 390 px wide', async () => {
    const phone = await signedInPage(signInLink, { width: 390, height: 844 });
    await phone.locator('figure.chart canvas').first().waitFor();
    const overflow = Number(await phone.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'));
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot('overview-phone', phone);
    await phone.close();
  });
});
