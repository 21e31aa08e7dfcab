import { describe, expect, it } from 'vitest';
import { localRuntime } from '../../bin/local/local-runtime.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { saveBranding } from '../../shared/store/branding.ts';
import { advanceClock, call, drainEvents, newMerchant, runDueJobs, type ApiResponse } from '../support/api.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { connect, GENERIC_SECRET, genericFailure, postGeneric } from '../support/webhooks.ts';

const TEMPLATES = '/v1/templates';

type Body = Record<string, any>;

function expectError(response: ApiResponse, status: number, code: string, param?: string) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.error.code).toBe(code);
  if (param !== undefined) expect(response.body.error.param).toBe(param);
}

async function setUp() {
  const merchant = await newMerchant();
  const tenant: Tenant = { merchantId: merchant.merchantId, environment: 'test' };
  return { ...merchant, tenant, key: merchant.keys.test_write };
}

const emailBody = (over: Body = {}): Body => ({
  channel: 'email',
  name: 'Friendly reminder',
  subject: '{{ merchant_name }}: {{ formatted_amount }} is still due',
  html: '<h1>Hi {{ customer_name | default: "there" }}</h1><p>{{ formatted_amount }} for {{ plan }} failed {{ days_since_failure }} days ago.</p><p><a href="{{ update_url }}">Update your card</a></p>',
  text: 'Hi {{ customer_name | default: "there" }}, {{ formatted_amount }} for {{ plan }} failed. Update: {{ update_url }}',
  ...over,
});

const smsBody = (text = '{{ merchant_name }}: {{ formatted_amount }} failed. Update your card: {{ update_url }}'): Body => ({ channel: 'sms', name: 'Short', text });

async function create(key: string, body: Body): Promise<Body> {
  const response = await call('POST', TEMPLATES, { key, body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data;
}

const outboxTo = (to: string) => localRuntime().outbox.entries().filter((entry) => entry.to === to);

describe('templates as a resource', () => {
  it('creates, reads, lists, updates and deletes a template, stored under the tenant', async () => {
    // Prepare
    const { key, tenant, keys } = await setUp();
    // Act
    const created = await create(key, emailBody());
    const read = await call('GET', `${TEMPLATES}/${created.id}`, { key: keys.test_read });
    const updated = await call('PUT', `${TEMPLATES}/${created.id}`, { key, body: { name: 'Second try', html: null } });
    const listed = await call('GET', TEMPLATES, { key: keys.test_read, query: { per_page: '100' } });
    const emailOnly = await call('GET', TEMPLATES, { key, query: { per_page: '100', channel: 'sms' } });
    // Assess
    expect(created).toMatchObject({ object: 'template', channel: 'email', name: 'Friendly reminder', built_in: false, sms_length: null, livemode: false });
    expect(created.id).toMatch(/^tpl_[0-9a-z]{26}$/);
    expect(created.variables).toEqual(['customer_name', 'formatted_amount', 'merchant_name', 'update_url', 'days_since_failure', 'plan']);
    expect(read.body.data).toEqual(created);
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.data).toMatchObject({ name: 'Second try', html: null, text: created.text });
    expect(listed.body.pagination.total).toBe(31);
    expect(listed.body.data.slice(0, 2).map((t: Body) => [t.id, t.channel, t.built_in])).toEqual([
      ['tpl_payment_failed', 'email', true],
      ['tpl_payment_failed_sms', 'sms', true],
    ]);
    expect(listed.body.data.at(-1).id).toBe(created.id);
    expect(emailOnly.body.data.every((t: Body) => t.channel === 'sms')).toBe(true);
    expect(emailOnly.body.pagination.total).toBe(15);
    const [stored] = await tenantItems(tenant, 'TEMPLATE#');
    expect(stored).toMatchObject({ id: created.id, name: 'Second try', html: null, version: 2 });

    // Act: deleted
    const deleted = await call('DELETE', `${TEMPLATES}/${created.id}`, { key });
    // Assess
    expect(deleted.body.data).toEqual({ id: created.id, deleted: true });
    expectError(await call('GET', `${TEMPLATES}/${created.id}`, { key }), 404, 'resource_not_found');
    expect(await tenantItems(tenant, 'TEMPLATE#')).toEqual([]);
  });

  it('reports an sms template in GSM-7 or UCS-2 segments', async () => {
    const { key } = await setUp();
    const short = await create(key, smsBody());
    const long = await create(key, smsBody(`{{ merchant_name }}: ${'a'.repeat(300)}`));
    const unicode = await create(key, smsBody('{{ merchant_name }} 💳 payment failed'));
    expect(short.sms_length).toMatchObject({ encoding: 'gsm7', segments: 1 });
    expect(long.sms_length).toMatchObject({ encoding: 'gsm7', segments: 3 });
    expect(unicode.sms_length).toMatchObject({ encoding: 'ucs2', segments: 1 });
  });

  it('shows built-in templates, read-only', async () => {
    const { key } = await setUp();
    const builtIn = await call('GET', `${TEMPLATES}/tpl_contact_bank_sms`, { key });
    expect(builtIn.body.data).toMatchObject({ id: 'tpl_contact_bank_sms', channel: 'sms', built_in: true, subject: null, html: null });
    expect(builtIn.body.data.sms_length.segments).toBeGreaterThan(0);
    expectError(await call('PUT', `${TEMPLATES}/tpl_contact_bank`, { key, body: { name: 'Mine' } }), 409, 'state_conflict');
    expectError(await call('DELETE', `${TEMPLATES}/tpl_contact_bank`, { key }), 409, 'state_conflict');
    expectError(await call('GET', `${TEMPLATES}/tpl_no_such_template`, { key }), 404, 'resource_not_found');
    expectError(await call('GET', `${TEMPLATES}/not-a-template`, { key }), 404, 'resource_not_found');
  });

  it('needs the write scope to change templates and the read scope to see them', async () => {
    const { keys } = await setUp();
    expectError(await call('POST', TEMPLATES, { key: keys.test_read, body: emailBody() }), 403, 'insufficient_scope');
    expect((await call('GET', TEMPLATES, { key: keys.test_read })).status).toBe(200);
  });
});

describe('checked when saved', () => {
  it.each([
    ['an unknown variable in the text', { text: 'Hi {{ customer.first_name }}' }, 'text', "unknown variable 'customer.first_name' (line 1, column 7)"],
    ['an unknown variable in a branch', { html: '{% if plan %}{{ secret_token }}{% endif %}' }, 'html', "unknown variable 'secret_token'"],
    ['an unknown variable in the subject', { subject: 'Hi {{ name }}' }, 'subject', "unknown variable 'name'"],
    ['a property of a variable', { text: '{{ customer_name.constructor }}' }, 'text', "unknown variable 'customer_name.constructor'"],
    ['an unknown filter', { text: '{{ customer_name | shout }}' }, 'text', 'unknown filter: shout'],
    ['the raw filter, which would undo escaping', { html: '{{ customer_name | raw }}' }, 'html', 'unknown filter: raw'],
    ['a parse error', { text: 'Hi {{ customer_name ' }, 'text', 'not closed'],
    ['an unclosed tag', { html: '{% if plan %}no end' }, 'html', 'not closed'],
    ['an include', { html: '{% include "header" %}' }, 'html', 'includes, render and layout tags are not supported'],
    ['an email without subject', { subject: undefined }, 'subject', 'email templates need a subject'],
  ])('refuses %s (422 naming the field), storing nothing', async (_, change, param, message) => {
    const { key, tenant } = await setUp();
    const body = emailBody(change);
    const response = await call('POST', TEMPLATES, { key, body: JSON.parse(JSON.stringify(body)) });
    expectError(response, 422, 'validation_error', param);
    expect(response.body.error.message).toContain(message);
    expect(await tenantItems(tenant, 'TEMPLATE#')).toEqual([]);
  });

  it('refuses an sms template with a subject or HTML, and one over 1600 characters', async () => {
    const { key } = await setUp();
    expectError(await call('POST', TEMPLATES, { key, body: { ...smsBody(), subject: 'x' } }), 422, 'validation_error', 'subject');
    expectError(await call('POST', TEMPLATES, { key, body: { ...smsBody(), html: '<p>x</p>' } }), 422, 'validation_error', 'html');
    expectError(await call('POST', TEMPLATES, { key, body: smsBody('a'.repeat(1601)) }), 422, 'validation_error', 'text');
  });

  it('refuses a bad update and keeps the stored template', async () => {
    const { key, tenant } = await setUp();
    const created = await create(key, emailBody());
    expectError(await call('PUT', `${TEMPLATES}/${created.id}`, { key, body: { text: '{{ password }}' } }), 422, 'validation_error', 'text');
    expectError(await call('PUT', `${TEMPLATES}/${created.id}`, { key, body: { channel: 'sms' } }), 400, 'invalid_request');
    const [stored] = await tenantItems(tenant, 'TEMPLATE#');
    expect(stored).toMatchObject({ text: created.text, version: 1 });
  });

  it('refuses a loop that would run away', async () => {
    const { key } = await setUp();
    const response = await call('POST', TEMPLATES, { key, body: smsBody('{% for i in (1..100000000) %}{{ i }}{% endfor %}') });
    expectError(response, 422, 'validation_error', 'text');
  });
});

describe('campaign steps and templates', () => {
  const campaign = (steps: Body[]) => ({ name: 'Own words', trigger: 'payment_failed', steps });

  it('refuses a step naming a template that does not exist, or one of the other channel (422)', async () => {
    const { key } = await setUp();
    const sms = await create(key, smsBody());
    const missing = await call('POST', '/v1/campaigns', { key, body: campaign([{ channel: 'email', template_id: 'tpl_nope', subject: 'x', delay_hours: 0 }]) });
    expectError(missing, 422, 'validation_error', 'steps.0.template_id');
    expect(missing.body.error.message).toContain("no such template: 'tpl_nope'");
    const wrong = await call('POST', '/v1/campaigns', { key, body: campaign([{ channel: 'email', template_id: sms.id, subject: 'x', delay_hours: 0 }]) });
    expectError(wrong, 422, 'validation_error', 'steps.0.template_id');
    const other = await setUp();
    const elsewhere = await call('POST', '/v1/campaigns', { key: other.key, body: campaign([{ channel: 'sms', template_id: sms.id, delay_hours: 0 }]) });
    expectError(elsewhere, 422, 'validation_error', 'steps.0.template_id');
  });

  it('refuses to delete a template a campaign uses (409) until the campaign is archived', async () => {
    const { key } = await setUp();
    const sms = await create(key, smsBody());
    const created = await call('POST', '/v1/campaigns', { key, body: campaign([{ channel: 'sms', template_id: sms.id, delay_hours: 0 }]) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // The step is changed, but version 1 (which enrollments may follow) still names it.
    const id = created.body.data.id;
    expect((await call('PUT', `/v1/campaigns/${id}`, { key, body: { steps: [{ channel: 'sms', template_id: 'tpl_payment_failed_sms', delay_hours: 0 }] } })).status).toBe(200);
    const refused = await call('DELETE', `${TEMPLATES}/${sms.id}`, { key });
    expectError(refused, 409, 'state_conflict');
    expect(refused.body.error.message).toContain(id);
    expect((await call('POST', `/v1/campaigns/${id}/archive`, { key })).status).toBe(200);
    expect((await call('DELETE', `${TEMPLATES}/${sms.id}`, { key })).status).toBe(200);
  });
});

describe('a deletion racing a campaign that names the template', () => {
  it('never leaves a campaign step naming a deleted template', async () => {
    const { key, tenant } = await setUp();
    for (let round = 0; round < 6; round++) {
      // Prepare
      const sms = await create(key, smsBody());
      const body = { name: `Race ${round}`, trigger: 'payment_failed', steps: [{ channel: 'sms', template_id: sms.id, delay_hours: 0 }] };
      // Act: both at once
      const [deleted, saved] = await Promise.all([call('DELETE', `${TEMPLATES}/${sms.id}`, { key }), call('POST', '/v1/campaigns', { key, body })]);
      // Assess: exactly one wins, and the stored state agrees with it
      const stored = (await tenantItems(tenant, 'TEMPLATE#')).some((item) => item.id === sms.id);
      if (saved.status === 201) {
        expect(deleted.status, JSON.stringify(deleted.body)).toBe(409);
        expect(stored).toBe(true);
      } else {
        expectError(saved, 422, 'validation_error', 'steps.0.template_id');
        expect(deleted.status).toBe(200);
        expect(stored).toBe(false);
      }
    }
  });
});

describe('preview and test send', () => {
  it('renders with sample data: values escaped in HTML, the branded frame and footer around it', async () => {
    const { key, tenant } = await setUp();
    await saveBranding(
      tenant,
      { name: 'Acme <Pro>', logo_url: 'https://cdn.acme.example/logo.png', accent_color: '#ff5500', support_email: 'help@acme.example', version: 1, updated_at: new Date().toISOString() },
      null,
    );
    const created = await create(key, emailBody({ html: '<p>{{ merchant_name }} — {{ formatted_amount }}</p>' }));
    const preview = await call('POST', `${TEMPLATES}/${created.id}/preview`, { key, body: {} });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    const { rendered } = preview.body.data;
    expect(preview.body.data).toMatchObject({ object: 'template_preview', template_id: created.id, customer_id: null, payment_id: null, sms_length: null });
    expect(rendered.subject).toBe('Acme <Pro>: $19.99 is still due');
    expect(rendered.html).toContain('<p>Acme &lt;Pro&gt; — $19.99</p>');
    expect(rendered.html).toContain('<img src="https://cdn.acme.example/logo.png" alt="Acme &lt;Pro&gt;"');
    expect(rendered.html).toContain('#ff5500');
    expect(rendered.html).toContain('mailto:help@acme.example');
    expect(rendered.text).toContain('Questions? Write to help@acme.example.');
    expect(rendered.text).not.toMatch(/unsubscribe/i);
  });

  it("renders with a customer's most recent open failure, escaping what came from the processor", async () => {
    const { key, tenant, keys } = await setUp();
    const path = await connect(keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
    const failure = genericFailure({ code: 'expired_card', amount: 4200, currency: 'EUR' });
    failure.customer.name = '<script>alert(1)</script>';
    expect((await postGeneric(path, failure)).status).toBe(200);
    const [customer] = await tenantItems(tenant, 'CUSTOMER#');
    const [payment] = await tenantItems(tenant, 'PAYMENT#');
    const created = await create(key, emailBody());
    const preview = await call('POST', `${TEMPLATES}/${created.id}/preview`, { key: keys.test_read, body: { customer_id: customer!.id } });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(preview.body.data).toMatchObject({ customer_id: customer!.id, payment_id: payment!.id });
    expect(preview.body.data.rendered.html).toContain('<h1>Hi &lt;script&gt;alert(1)&lt;/script&gt;</h1>');
    expect(preview.body.data.rendered.html).not.toContain('<script>');
    expect(preview.body.data.rendered.html).toContain('€42.00 for pro failed 0 days ago');
    expect(preview.body.data.rendered.text).toContain('Hi <script>alert(1)</script>, €42.00');
    expectError(await call('POST', `${TEMPLATES}/${created.id}/preview`, { key, body: { customer_id: 'cus_00000000000000000000000000' } }), 422, 'validation_error', 'customer_id');
  });

  it('sends a test to the outbox, checks the address for the channel, and limits the rate', async () => {
    const { key } = await setUp();
    const email = await create(key, emailBody());
    const sms = await create(key, smsBody());
    const to = `tester.${Date.now()}@example.com`;
    const sent = await call('POST', `${TEMPLATES}/${email.id}/test-send`, { key, body: { to } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.body.data).toMatchObject({ object: 'template_test_send', template_id: email.id, to, rendered: { subject: expect.stringMatching(/^\[Test\] .+: \$19\.99 is still due$/) } });
    const [entry] = outboxTo(to);
    expect(entry).toMatchObject({ channel: 'email', content: { subject: expect.stringMatching(/^\[Test\] /) } });
    expect((entry!.content as Body).html).toContain('Jane Doe');
    expectError(await call('POST', `${TEMPLATES}/${email.id}/test-send`, { key, body: { to: '+14155550123' } }), 422, 'validation_error', 'to');
    expectError(await call('POST', `${TEMPLATES}/${sms.id}/test-send`, { key, body: { to } }), 422, 'validation_error', 'to');
    expect((await call('POST', `${TEMPLATES}/${sms.id}/test-send`, { key, body: { to: '+14155550123' } })).status).toBe(200);
    for (let i = 2; i < 10; i++) expect((await call('POST', `${TEMPLATES}/tpl_payment_failed/test-send`, { key, body: { to } })).status).toBe(200);
    const limited = await call('POST', `${TEMPLATES}/${email.id}/test-send`, { key, body: { to } });
    expectError(limited, 429, 'rate_limit_exceeded');
    expect(outboxTo(to)).toHaveLength(9);
  });
});

describe('a dunning step on a merchant template', () => {
  it('sends the stored template, rendered for the customer, in the branded frame', async () => {
    const { key, keys } = await setUp();
    const path = await connect(keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
    const own = await create(key, emailBody({ html: '<p>Dear {{ customer_name }}, {{ formatted_amount }} please.</p>' }));
    const created = await call('POST', '/v1/campaigns', { key, body: { name: 'Own', trigger: 'payment_failed', steps: [{ channel: 'email', template_id: own.id, subject: 'About {merchant}', delay_hours: 0 }] } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await call('POST', `/v1/campaigns/${created.body.data.id}/activate`, { key })).status).toBe(200);
    const email = `dunned.${Date.now()}@example.com`;
    expect((await postGeneric(path, genericFailure({ code: 'expired_card', email, amount: 1500, currency: 'USD' }))).status).toBe(200);
    await drainEvents();
    advanceClock(60);
    await runDueJobs();
    const [sent] = outboxTo(email);
    expect(sent, 'the step sent an email').toBeDefined();
    expect((sent!.content as Body).html).toContain('<p>Dear Buyer ');
    expect((sent!.content as Body).html).toContain('$15.00 please.</p>');
    expect((sent!.content as Body).subject).toMatch(/^About /);
    expect((sent!.content as Body).text).toContain('This is a service message about your account.');
  });
});
