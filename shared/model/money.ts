/** Money in the smallest currency unit (§2.1), and the ISO 4217 facts needed to show or send it. */

/** ISO 4217 minor units where they are not 2. */
const MINOR_UNIT_DIGITS: ReadonlyMap<string, number> = new Map([
  ...['BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'UYI', 'VND', 'VUV', 'XAF', 'XOF', 'XPF'].map(
    (code) => [code, 0] as const,
  ),
  ...['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'].map((code) => [code, 3] as const),
  ...['CLF', 'UYW'].map((code) => [code, 4] as const),
]);

export function minorUnitDigits(currency: string): number {
  return MINOR_UNIT_DIGITS.get(currency.toUpperCase()) ?? 2;
}

/** 1250 USD → '12.50'; exact, no floating point. */
export function toDecimalString(amount: number, currency: string): string {
  const digits = minorUnitDigits(currency);
  const text = String(Math.abs(amount)).padStart(digits + 1, '0');
  const sign = amount < 0 ? '-' : '';
  return digits === 0 ? `${sign}${text}` : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** '12.50' USD → 1250, by string arithmetic; undefined when malformed or more precise than the currency allows. */
export function parseDecimalAmount(amount: string, currency: string): number | undefined {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!match) return undefined;
  const digits = minorUnitDigits(currency);
  const fraction = match[2] ?? '';
  if (/[^0]/.test(fraction.slice(digits))) return undefined;
  const minor = Number(`${match[1]}${fraction.slice(0, digits).padEnd(digits, '0')}`);
  return Number.isSafeInteger(minor) ? minor : undefined;
}

/**
 * The sign en-US writes before an amount where it is not the code and a no-break space: CLDR's, as
 * Node's ICU has it (test/unit/money.test.ts holds the two equal for every currency ICU knows).
 */
const EN_US_CURRENCY_SIGNS: Readonly<Record<string, string>> = {
  AUD: 'A$',
  BRL: 'R$',
  CAD: 'CA$',
  CNY: 'CN\u00a5',
  EUR: '\u20ac',
  GBP: '\u00a3',
  HKD: 'HK$',
  ILS: '\u20aa',
  INR: '\u20b9',
  JPY: '\u00a5',
  KRW: '\u20a9',
  MXN: 'MX$',
  NZD: 'NZ$',
  PHP: '\u20b1',
  TWD: 'NT$',
  USD: '$',
  VND: '\u20ab',
  XAF: 'FCFA\u00a0',
  XCD: 'EC$',
  XCG: 'Cg.\u00a0',
  XOF: 'F\u202fCFA\u00a0',
  XPF: 'CFPF\u00a0',
};

/**
 * 1250 USD → '$12.50', as Intl.NumberFormat('en-US', { style: 'currency' }) writes it, but by string
 * arithmetic: Intl's first number format loads ICU's data, some 30 ms of the cold start of every
 * function that renders a message. A code that is not three letters is Intl's to refuse.
 */
export function formatMoney(amount: number, currency: string): string {
  const code = currency.toUpperCase();
  if (!/^[A-Z]{3}$/.test(code)) return formatMoneyIn(amount, currency, 'en-US');
  const [whole = '', fraction] = toDecimalString(Math.abs(amount), code).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+$)/g, ',');
  return `${amount < 0 ? '-' : ''}${EN_US_CURRENCY_SIGNS[code] ?? `${code}\u00a0`}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}

/** 1250 EUR → '12,50 €' in de-DE: any locale, through Intl (the dashboard, in the browser's locale). */
export function formatMoneyIn(amount: number, currency: string, locale: string): string {
  const digits = minorUnitDigits(currency);
  return new Intl.NumberFormat(locale, { style: 'currency', currency: currency.toUpperCase(), minimumFractionDigits: digits, maximumFractionDigits: digits }).format(
    Number(toDecimalString(amount, currency)),
  );
}
