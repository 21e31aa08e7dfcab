import { formatMoneyIn } from '../../shared/model/money.ts';

/** Presentation in the browser's locale and time zone; money by the service's own minor-unit table. */
const locale = supported(navigator.language) ?? 'en-US';

/** A browser may report a tag Intl refuses (a POSIX one, `en-US@posix`): such a tag is not used. */
function supported(tag: string | undefined): string | undefined {
  try {
    return tag ? Intl.getCanonicalLocales(tag)[0] : undefined;
  } catch {
    return undefined;
  }
}

export const money = (amount: number, currency: string): string => formatMoneyIn(amount, currency, locale);

const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
const dayFormat = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
const number = new Intl.NumberFormat(locale);
const percent = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 });

export const localDateTime = (iso: string): string => dateTime.format(new Date(iso));
/** A UTC day (yyyy-mm-dd) as a date, not shifted into the browser's zone. */
export const utcDay = (day: string): string => dayFormat.format(new Date(`${day}T00:00:00Z`));
export const utcText = (iso: string): string => `${iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '')} UTC`;
export const count = (value: number): string => number.format(value);
export const rate = (value: number): string => percent.format(value);

/** snake_case API values as words: communication_pending → communication pending. */
export const words = (value: string): string => value.replace(/_/g, ' ');
