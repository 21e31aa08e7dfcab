import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linkUsable, LINK_TOKEN_PATTERN, newLinkToken } from '../../shared/model/card-update-link.ts';
import { checkTestCard } from '../../shared/model/test-cards.ts';
import { textOn } from '../../shared/pages/html.ts';

const NOW = new Date('2026-11-26T12:00:00Z');
const DAY = 86_400_000;

describe('the test-mode card form', () => {
  it.each([
    ['4242 4242 4242 4242', '12/30', '123', { card: { type: 'card', brand: 'visa', last_four: '4242', exp_month: 12, exp_year: 2030 } }],
    ['4242424242424241', '12/30', '123', { field: 'number', code: 'incorrect_number' }],
    ['4242424242424242', '13/30', '123', { field: 'expiry', code: 'invalid_expiry' }],
    ['4242424242424242', '10/26', '123', { field: 'expiry', code: 'invalid_expiry_year' }],
    ['378282246310005', '12/30', '123', { field: 'cvc', code: 'incomplete_cvc' }],
    ['4000000000000002', '12/30', '123', { field: 'number', code: 'card_declined' }],
    ['4000000000000069', '12/30', '123', { field: 'expiry', code: 'expired_card' }],
  ])('%s %s %s', (number, expiry, cvc, expected) => {
    expect(checkTestCard({ number, expiry, cvc }, NOW)).toMatchObject(expected);
  });

  it('accepts the current month, never a past one, whatever the number', () => {
    fc.assert(
      fc.property(fc.integer({ min: -24, max: 24 }), (offset) => {
        const at = new Date(Date.UTC(2026, 10 + offset, 1));
        const expiry = `${String(at.getUTCMonth() + 1).padStart(2, '0')}/${String(at.getUTCFullYear() % 100).padStart(2, '0')}`;
        const check = checkTestCard({ number: '4242424242424242', expiry, cvc: '123' }, NOW);
        return offset >= 0 ? 'card' in check : 'field' in check && check.field === 'expiry';
      }),
    );
  });

  it('never takes a number failing the Luhn check', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{14}$/), fc.integer({ min: 1, max: 9 }), (body, shift) => {
        const valid = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(String).find((digit) => 'card' in checkTestCard({ number: `4${body}${digit}`, expiry: '12/30', cvc: '123' }, NOW));
        if (valid === undefined) return true;
        const wrong = String((Number(valid) + shift) % 10);
        return !('card' in checkTestCard({ number: `4${body}${wrong}`, expiry: '12/30', cvc: '123' }, NOW));
      }),
    );
  });
});

describe('card-update links', () => {
  it('are 22 characters of base64url', () => {
    for (let i = 0; i < 50; i++) expect(newLinkToken()).toMatch(LINK_TOKEN_PATTERN);
  });

  it('open while a failure is open or 14 days after the message, never past 180 days, never for an erased customer', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200 * DAY }), fc.integer({ min: 0, max: 3 }), (age, open) => {
        const link = { issued_at: new Date(NOW.getTime() - age).toISOString() };
        const expected = age < 180 * DAY && (open > 0 || age < 14 * DAY);
        return linkUsable(link, { failed_payments: open }, NOW) === expected && !linkUsable(link, undefined, NOW);
      }),
    );
  });
});

describe('text on the accent colour', () => {
  it('picks the more readable of black and white', () => {
    expect(textOn('#0f766e')).toBe('#ffffff');
    expect(textOn('#ffdd00')).toBe('#000000');
    expect(textOn('#2251c8')).toBe('#ffffff');
  });
});
