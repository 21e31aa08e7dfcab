import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatMoney, formatMoneyIn } from '../../shared/model/money.ts';

/** What formatMoney stands in for: ICU's en-US currency format with the currency's minor units. */
const intlMoney = (amount: number, currency: string): string => formatMoneyIn(amount, currency, 'en-US');

const CURRENCIES = Intl.supportedValuesOf('currency');

describe('formatMoney', () => {
  it('writes every currency ICU knows as Intl.NumberFormat does in en-US, in either case', () => {
    for (const currency of CURRENCIES) {
      for (const amount of [0, 1, -1, 5, 999, 1000, 123_456, -123_456_789, 100_000_000_000]) {
        expect(formatMoney(amount, currency)).toBe(intlMoney(amount, currency));
        expect(formatMoney(amount, currency.toLowerCase())).toBe(intlMoney(amount, currency));
      }
    }
  });

  it('agrees with Intl for any amount up to a trillion units and any currency, known or not', () => {
    const code = fc.oneof(fc.constantFrom(...CURRENCIES), fc.stringMatching(/^[A-Za-z]{3}$/));
    fc.assert(fc.property(fc.integer({ min: -1e12, max: 1e12 }), code, (amount, currency) => formatMoney(amount, currency) === intlMoney(amount, currency)));
  });

  it('refuses a code that is not three letters, as Intl does', () => {
    expect(() => formatMoney(100, 'us')).toThrow(RangeError);
    expect(() => formatMoney(100, 'usd1')).toThrow(RangeError);
  });
});

describe('formatMoneyIn', () => {
  it("writes the browser's locale with the currency's own minor units", () => {
    expect(formatMoneyIn(1250, 'eur', 'de-DE')).toBe('12,50\u00a0€');
    expect(formatMoneyIn(1250, 'jpy', 'en-US')).toBe('¥1,250');
    expect(formatMoneyIn(1250, 'kwd', 'en-US')).toBe('KWD\u00a01.250');
  });
});
