import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BUILT_IN_TEMPLATES, builtInFor, builtInTemplate, calendarTemplate, templateForAction } from '../../shared/domain/templates/built-in-templates.ts';
import { renderMessage, templateValues, type MessageFacts, type RenderedEmail } from '../../shared/domain/templates/message-rendering.ts';
import { defaultBranding } from '../../shared/model/branding.ts';
import { paymentUpdateUrlProblem, safePaymentUpdateUrl } from '../../shared/model/payment-update-url.ts';
import { A_HARD, B_HARD } from '../support/spec-decline-tables.ts';
import { formatMoney, parseDecimalAmount, toDecimalString } from '../../shared/model/money.ts';

const NOW = new Date('2026-11-26T12:00:00Z');

interface Context extends Partial<MessageFacts> {
  merchantName?: string;
}

const context: Context = { customerName: 'Ada', merchantName: 'Acme', amount: 1999, currency: 'usd', updateUrl: 'https://acme.example/billing' };

function render(id: string, channel: 'email' | 'sms', { merchantName = 'Acme', ...facts }: Context) {
  const branding = defaultBranding(merchantName);
  const full: MessageFacts = { customerName: null, customerEmail: null, amount: null, currency: 'usd', plan: null, card: null, updateUrl: null, occasion: { kind: 'failure', failedAt: null }, ...facts };
  return renderMessage(builtInFor(id, channel)!, templateValues(full, branding, NOW), branding);
}

/** The email, its text without the transactional footer (tested in message-rendering.test.ts). */
function renderEmail(id: string, over: Context) {
  const email = render(id, 'email', over) as RenderedEmail;
  return { ...email, text: email.text.split('\n\n--\n')[0]! };
}

const renderSms = (id: string, over: Context): string => render(id, 'sms', over).text;

describe('message templates', () => {
  it('has a template for every customer action of the hard-decline tables', () => {
    for (const [, , action] of [...A_HARD, ...B_HARD]) expect(templateForAction(action)).not.toBe('tpl_payment_failed');
    expect(templateForAction(null)).toBe('tpl_payment_failed');
  });

  it('renders every template with the amount, merchant and link', () => {
    for (const id of BUILT_IN_TEMPLATES.filter((template) => template.channel === 'email').map((template) => template.id)) {
      const email = renderEmail(id, context);
      expect(email.subject).toContain('Acme');
      expect(email.subject).not.toContain('{merchant}');
      expect(email.text).toContain('$19.99');
      expect(email.html).toContain('href="https://acme.example/billing"');
      expect(renderSms(id, context)).toContain('$19.99');
    }
  });

  it('comes as an email and an sms twin for each, with stable ids', () => {
    expect(BUILT_IN_TEMPLATES).toHaveLength(30);
    expect(builtInTemplate('tpl_contact_bank')?.channel).toBe('email');
    expect(builtInTemplate('tpl_contact_bank_sms')?.channel).toBe('sms');
    expect(builtInFor('tpl_contact_bank', 'sms')?.id).toBe('tpl_contact_bank_sms');
    expect(builtInFor('tpl_contact_bank_sms', 'email')?.id).toBe('tpl_contact_bank');
    expect(builtInFor('tpl_nothing_sms', 'email')).toBeUndefined();
  });

  it('escapes everything that comes from outside in the HTML body', () => {
    const hostile = { ...context, customerName: '<script>alert(1)</script>', merchantName: 'A&B "Co"', updateUrl: 'https://x.example/?a=1&b="><img>' };
    const email = renderEmail('tpl_payment_failed', hostile);
    expect(email.html).not.toContain('<script>');
    expect(email.html).toContain('&lt;script&gt;');
    expect(email.html).toContain('A&amp;B &quot;Co&quot;');
    expect(email.html).not.toContain('"><img>');
  });

  it('greets without a name when none is known, and leaves out a missing link', () => {
    const email = renderEmail('tpl_contact_bank', { ...context, customerName: null, updateUrl: null });
    expect(email.text.startsWith('Hi,')).toBe(true);
    expect(email.html).not.toContain('<a ');
  });
});

describe('the payment-update link', () => {
  it('goes into the text, the HTML and the sms, escaped and percent-encoded', () => {
    // Prepare
    const link = 'https://billing.acme.example/update?ref=dunning&lang=en';
    // Act
    const email = renderEmail('tpl_update_payment_method', { ...context, updateUrl: link });
    const sms = renderSms('tpl_update_payment_method', { ...context, updateUrl: link });
    // Assess
    expect(email.text).toContain(`Update your payment method: ${link}`);
    expect(email.html).toContain('<a href="https://billing.acme.example/update?ref=dunning&amp;lang=en">Update your payment method</a>');
    expect(sms.endsWith(` ${link}`)).toBe(true);
    expect(renderEmail('tpl_payment_failed', { ...context, updateUrl: 'https://acme.example/a b"<x>' }).html).toContain(
      'href="https://acme.example/a%20b%22%3Cx%3E"',
    );
  });

  it.each([
    ['http://acme.example/billing', 'must be an https URL'],
    ['javascript:alert(1)', 'must be an https URL'],
    ['https://user:secret@acme.example/', 'must not contain a user name or password'],
    ['https://192.0.2.10/billing', 'must name a domain (not a bare host or an IP address)'],
    ['https://intranet/billing', 'must name a domain (not a bare host or an IP address)'],
    ['billing.acme.example', 'must be an absolute URL'],
    [`https://acme.example/${'a'.repeat(2048)}`, 'must be at most 2048 characters'],
  ])('leaves out %s (%s)', (url, problem) => {
    expect(paymentUpdateUrlProblem(url)).toBe(problem);
    expect(safePaymentUpdateUrl(url)).toBeNull();
    const email = renderEmail('tpl_payment_failed', { ...context, updateUrl: url });
    expect(email.html).not.toContain('<a ');
    expect(email.text).not.toContain('Update your payment method');
    expect(renderSms('tpl_payment_failed', { ...context, updateUrl: url })).not.toContain(url);
  });
});

describe('calendar reminders', () => {
  const card = { type: 'card', brand: 'visa', last_four: '4242', exp_month: 12, exp_year: 2026 };

  it('say which card expires when, and what it pays for, without claiming a failure', () => {
    // Act
    const email = renderEmail('tpl_card_expiring', { ...context, amount: 2900, currency: 'eur', card, occasion: { kind: 'card_expiring' } });
    const sms = renderSms('tpl_card_expiring', { ...context, amount: 2900, currency: 'eur', updateUrl: null, card, occasion: { kind: 'card_expiring' } });
    // Assess
    expect(email.subject).toBe('Your card for Acme expires soon');
    expect(email.text).toBe(
      [
        'Hi Ada,',
        '',
        'Your Visa card ending in 4242, which pays for your Acme subscription (€29.00), expires at the end of December 2026. Please update your card before your next renewal so your subscription continues.',
        '',
        'Update your payment method: https://acme.example/billing',
      ].join('\n'),
    );
    expect(sms).toBe(
      'Acme: Your Visa card ending in 4242, which pays for your Acme subscription (€29.00), expires at the end of December 2026. Please update your card before your next renewal so your subscription continues.',
    );
    expect(email.text).not.toContain('could not collect');
  });

  it('name the renewal date and amount before a renewal the card cannot pay', () => {
    const occasion = { kind: 'pre_dunning' as const, renewsAt: '2026-12-01T02:00:00Z' };
    const renewing = { card: { ...card, brand: 'amex', exp_month: 11 }, occasion };
    const email = renderEmail('tpl_upcoming_renewal', { ...context, amount: 2900, currency: 'usd', ...renewing });
    expect(email.subject).toBe('Please update your card before your Acme renewal');
    expect(email.text).toContain(
      'Your Acme subscription renews on December 1, 2026 for $29.00, but your American Express card ending in 4242 (expires November 2026) cannot be charged then. Please update your card before the renewal',
    );
    expect(renderEmail('tpl_upcoming_renewal', { ...context, amount: null, ...renewing }).text).toContain('renews on December 1, 2026, but your');
  });

  it('use a calendar template for calendar steps, keeping a calendar template the step names', () => {
    expect(calendarTemplate('tpl_update_payment_method', 'card_expiring')).toBe('tpl_card_expiring');
    expect(calendarTemplate('tpl_payment_failed', 'pre_dunning')).toBe('tpl_upcoming_renewal');
    expect(calendarTemplate('tpl_card_expiring', 'pre_dunning')).toBe('tpl_card_expiring');
    expect(calendarTemplate('tpl_card_expiring_sms', 'pre_dunning')).toBe('tpl_card_expiring_sms');
    expect(calendarTemplate('tpl_merchant_custom', 'card_expiring')).toBe('tpl_card_expiring');
  });

  it('leave an unknown amount out of a failure notice rather than show zero', () => {
    expect(renderEmail('tpl_payment_failed', { ...context, amount: null }).text).toContain('We could not collect your payment to Acme.');
    expect(renderSms('tpl_payment_failed', { ...context, amount: null, updateUrl: null })).toBe(
      'Acme: your payment failed. Please check your payment details so your subscription continues.',
    );
  });
});

describe('money', () => {
  it.each([
    [1999, 'usd', '19.99', '$19.99'],
    [500, 'jpy', '500', '¥500'],
    [1234, 'bhd', '1.234', 'BHD 1.234'],
    [5, 'eur', '0.05', '€0.05'],
  ])('%i %s → %s / %s', (amount, currency, decimal, formatted) => {
    expect(toDecimalString(amount, currency)).toBe(decimal);
    expect(parseDecimalAmount(decimal, currency)).toBe(amount);
    expect(formatMoney(amount, currency).replace(/\u00a0/g, ' ')).toBe(formatted);
  });
});

describe('dates in messages', () => {
  const facts = (card: { exp_month: number; exp_year: number }, renewsAt: string): MessageFacts => ({
    customerName: null,
    customerEmail: null,
    amount: null,
    currency: 'usd',
    plan: null,
    card: { type: 'card', brand: 'visa', last_four: '4242', ...card },
    updateUrl: null,
    occasion: { kind: 'pre_dunning', renewsAt },
  });

  it('writes a card expiry and a renewal date as toLocaleDateString does in en-US (UTC)', () => {
    const instant = fc.date({ min: new Date('0500-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 9999 }), instant, (month, year, renewal) => {
        const values = templateValues(facts({ exp_month: month, exp_year: year }, renewal.toISOString()), defaultBranding('Acme'), NOW);
        const expiry = new Date(Date.UTC(year, month - 1, 1)).toLocaleDateString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
        const renewsOn = renewal.toLocaleDateString('en-US', { month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
        return values.card_expiry === expiry && values.renewal_date === renewsOn;
      }),
    );
  });
});
