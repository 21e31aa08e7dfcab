import { describe, expect, it } from 'vitest';
import { BUILT_IN_TEMPLATES, renderEmail, renderSms, templateForAction } from '../../shared/domain/message-templates.ts';
import { A_HARD, B_HARD } from '../support/spec-decline-tables.ts';
import { formatMoney, parseDecimalAmount, toDecimalString } from '../../shared/domain/money.ts';

const context = { customerName: 'Ada', merchantName: 'Acme', amount: 1999, currency: 'usd', updateUrl: 'https://acme.example/billing' };

describe('message templates', () => {
  it('has a template for every customer action of the hard-decline tables', () => {
    for (const [, , action] of [...A_HARD, ...B_HARD]) expect(templateForAction(action)).not.toBe('tpl_payment_failed');
    expect(templateForAction(null)).toBe('tpl_payment_failed');
  });

  it('renders every template with the amount, merchant and link', () => {
    for (const id of Object.keys(BUILT_IN_TEMPLATES)) {
      const email = renderEmail(id, context);
      expect(email.subject).toContain('Acme');
      expect(email.subject).not.toContain('{merchant}');
      expect(email.text).toContain('$19.99');
      expect(email.html).toContain('href="https://acme.example/billing"');
      expect(renderSms(id, context)).toContain('$19.99');
    }
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
