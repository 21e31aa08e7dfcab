import type { PaymentMethod } from './customer.ts';

/**
 * The test-mode card form's card checks, as the sandbox processor's own form makes them (Stripe's
 * documented test numbers): the number must pass the Luhn check, the expiry must not have passed,
 * the CVC must have 3 digits (4 for American Express). A few numbers are declined when saved, as at
 * Stripe; any other saved card is charged by the sandbox by its last four digits (docs/testing.md).
 */
export interface TestCardForm {
  number: string;
  expiry: string;
  cvc: string;
}

export type TestCardField = keyof TestCardForm;

/** Numbers the sandbox refuses to save, and what it says, on the field it concerns. */
export const DECLINED_WHEN_SAVED: Readonly<Record<string, { field: TestCardField; code: string; message: string }>> = {
  '4000000000000002': { field: 'number', code: 'card_declined', message: 'Your card was declined. Try another card.' },
  '4000000000000069': { field: 'expiry', code: 'expired_card', message: 'Your card has expired. Try another card.' },
  '4000000000000127': { field: 'cvc', code: 'incorrect_cvc', message: "Your card's security code is incorrect." },
};

const BRANDS: readonly [RegExp, string][] = [
  [/^4/, 'visa'],
  [/^(5[1-5]|2[2-7])/, 'mastercard'],
  [/^3[47]/, 'amex'],
  [/^6(011|5)/, 'discover'],
];

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

export type TestCardCheck = { card: PaymentMethod } | { field: TestCardField; code: string; message: string };

/** The card the form describes, or the first problem with it (on its field); `now` decides expiry. */
export function checkTestCard(form: TestCardForm, now: Date): TestCardCheck {
  const number = form.number.replace(/[\s-]/g, '');
  if (!/^\d{13,19}$/.test(number) || !luhn(number)) return { field: 'number', code: 'incorrect_number', message: 'Your card number is incorrect.' };
  const brand = BRANDS.find(([pattern]) => pattern.test(number))?.[1] ?? null;
  const expiry = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(form.expiry);
  const month = expiry ? Number(expiry[1]) : 0;
  if (!expiry || month < 1 || month > 12) return { field: 'expiry', code: 'invalid_expiry', message: "Your card's expiry date is incomplete: write it as MM/YY." };
  const year = expiry[2]!.length === 2 ? 2000 + Number(expiry[2]) : Number(expiry[2]);
  if (year * 12 + month < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1) {
    return { field: 'expiry', code: 'invalid_expiry_year', message: "Your card's expiry date is in the past." };
  }
  if (!new RegExp(`^\\d{${brand === 'amex' ? 4 : 3}}$`).test(form.cvc.trim())) {
    return { field: 'cvc', code: 'incomplete_cvc', message: `Your card's security code is incomplete: ${brand === 'amex' ? 4 : 3} digits.` };
  }
  const declined = DECLINED_WHEN_SAVED[number];
  if (declined) return declined;
  return { card: { type: 'card', brand, last_four: number.slice(-4), exp_month: month, exp_year: year } };
}
