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

/** 1250 USD → '$12.50' in the given locale. */
export function formatMoney(amount: number, currency: string, locale = 'en-US'): string {
  const digits = minorUnitDigits(currency);
  return new Intl.NumberFormat(locale, { style: 'currency', currency: currency.toUpperCase(), minimumFractionDigits: digits, maximumFractionDigits: digits }).format(
    Number(toDecimalString(amount, currency)),
  );
}
