import type { PaymentMethod } from '../../model/customer.ts';
import { formatMoney } from '../../model/money.ts';
import type { CalendarTrigger } from '../../model/campaign.ts';
import { safePaymentUpdateUrl } from '../../model/payment-update-url.ts';

/**
 * Built-in dunning templates: one per customer action of §2.6's hard-decline tables, a generic
 * failure notice, and the two calendar reminders (card expiring, renewal on a card that will not
 * work). Every value from outside is escaped for HTML.
 */

/** What a message is about: a failed payment, or a calendar occasion and the card it concerns. */
export type MessageOccasion =
  | { kind: 'failure' }
  | { kind: 'card_expiring'; card: PaymentMethod }
  | { kind: 'pre_dunning'; card: PaymentMethod; renewsAt: string };

export interface TemplateContext {
  customerName: string | null;
  merchantName: string;
  /** The failed amount, or what the renewal charges; left out of the message when unknown. */
  amount: number | null;
  currency: string;
  /** The merchant's own payment-update page (its setting); left out when unset or not an https URL. */
  updateUrl: string | null;
  /** The customer's personal card-update link, used when the merchant's page is not: together they are `update_url`. */
  personalLink?: string | null;
  /** Default: a failed payment. */
  occasion?: MessageOccasion;
}

interface Template {
  subject: string;
  /** What the customer should do, in a sentence. */
  ask: string;
}

export const BUILT_IN_TEMPLATES: Readonly<Record<string, Template>> = {
  tpl_payment_failed: { subject: 'Your payment to {merchant} did not go through', ask: 'Please check your payment details so your subscription continues.' },
  tpl_update_payment_method: { subject: 'Please update your payment method for {merchant}', ask: 'Your card can no longer be charged. Please add a new payment method.' },
  tpl_reenter_card_details: { subject: 'Please re-enter your card details for {merchant}', ask: 'Some card details did not match. Please enter them again.' },
  tpl_complete_authentication: { subject: 'Please confirm your payment to {merchant}', ask: 'Your bank asks you to confirm this payment. Please complete the authentication.' },
  tpl_contact_bank: { subject: 'Your bank declined your payment to {merchant}', ask: 'Please contact your bank to allow the payment, then we will try again.' },
  tpl_use_different_card: { subject: 'Please use a different card for {merchant}', ask: 'This card cannot be used for this payment. Please add a different card.' },
  tpl_contact_bank_or_update_card: { subject: 'Your payment to {merchant} was declined', ask: 'Please contact your bank or add a different card.' },
  tpl_contact_merchant: { subject: 'About your payment to {merchant}', ask: 'Please get in touch with us about this payment.' },
  tpl_use_real_card: { subject: 'Please use a real card for {merchant}', ask: 'A test card was used. Please add a real card.' },
  tpl_use_test_card: { subject: 'Please use a test-approved card for {merchant}', ask: 'Please use a card approved for testing.' },
  tpl_add_funds: { subject: 'Your payment to {merchant} was declined', ask: 'Please add funds to your account or use a different card.' },
  tpl_update_funding_source: { subject: 'Please update your funding source for {merchant}', ask: 'Please update the account this payment is drawn from.' },
  tpl_contact_wallet_provider: { subject: 'Your wallet declined your payment to {merchant}', ask: 'Please contact your wallet provider, or add a different payment method.' },
  tpl_card_expiring: { subject: 'Your card for {merchant} expires soon', ask: 'Please update your card before your next renewal so your subscription continues.' },
  tpl_upcoming_renewal: {
    subject: 'Please update your card before your {merchant} renewal',
    ask: 'Please update your card before the renewal so your subscription continues without interruption.',
  },
};

/** The reminders that speak about a card and a date rather than a failure; each calendar trigger's default. */
const CALENDAR_TEMPLATES: Readonly<Record<CalendarTrigger, string>> = { card_expiring: 'tpl_card_expiring', pre_dunning: 'tpl_upcoming_renewal' };

/** The built-in template that fits a decline's customer action (§2.6), for campaigns and defaults. */
const BY_CUSTOMER_ACTION: Readonly<Record<string, string>> = {
  'Update payment method': 'tpl_update_payment_method',
  'Re-enter card details': 'tpl_reenter_card_details',
  'Complete authentication': 'tpl_complete_authentication',
  'Contact bank': 'tpl_contact_bank',
  'Use a different card': 'tpl_use_different_card',
  'Contact bank or update card': 'tpl_contact_bank_or_update_card',
  'Contact merchant': 'tpl_contact_merchant',
  'Use a real card': 'tpl_use_real_card',
  'Use test-approved card': 'tpl_use_test_card',
  'Add funds or use different card': 'tpl_add_funds',
  'Update funding source': 'tpl_update_funding_source',
  'Contact the wallet provider': 'tpl_contact_wallet_provider',
};

export function templateForAction(customerAction: string | null): string {
  return (customerAction !== null && BY_CUSTOMER_ACTION[customerAction]) || 'tpl_payment_failed';
}

export const isBuiltInTemplate = (templateId: string): boolean => Object.hasOwn(BUILT_IN_TEMPLATES, templateId);

/**
 * The template a calendar step uses: its own when it is one of the calendar reminders, otherwise the
 * trigger's reminder, since a failure template would tell the customer a payment failed that never did.
 */
export function calendarTemplate(templateId: string, trigger: CalendarTrigger): string {
  return Object.values(CALENDAR_TEMPLATES).includes(templateId) ? templateId : CALENDAR_TEMPLATES[trigger];
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

function template(templateId: string): Template {
  const found = BUILT_IN_TEMPLATES[templateId];
  if (!found) throw new Error(`Unknown template '${templateId}'`);
  return found;
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

const BRAND_NAMES: Readonly<Record<string, string>> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  discover: 'Discover',
  diners: 'Diners Club',
  jcb: 'JCB',
  unionpay: 'UnionPay',
};

/** 'Visa card ending in 4242', 'card ending in 4242', or 'card on file'. */
function cardName(card: PaymentMethod): string {
  const brand = card.brand === null ? '' : `${BRAND_NAMES[card.brand.toLowerCase()] ?? card.brand} `;
  return card.last_four === null ? `${brand}card on file` : `${brand}card ending in ${card.last_four}`;
}

const monthYear = (year: number, month: number): string =>
  new Date(Date.UTC(year, month - 1, 1)).toLocaleDateString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
const longDate = (at: string): string => new Date(at).toLocaleDateString('en-US', { month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' });

/** The opening sentence: what happened or is about to (plain text; escaped where it goes into HTML). */
function lead(context: TemplateContext): string {
  const amount = context.amount === null ? null : formatMoney(context.amount, context.currency);
  const occasion = context.occasion ?? { kind: 'failure' };
  switch (occasion.kind) {
    case 'failure':
      return `We could not collect your payment${amount ? ` of ${amount}` : ''} to ${context.merchantName}.`;
    case 'card_expiring': {
      const { exp_month: month, exp_year: year } = occasion.card;
      const when = month !== null && year !== null ? ` at the end of ${monthYear(year, month)}` : ' soon';
      return `Your ${cardName(occasion.card)}, which pays for your ${context.merchantName} subscription${amount ? ` (${amount})` : ''}, expires${when}.`;
    }
    case 'pre_dunning': {
      const { exp_month: month, exp_year: year } = occasion.card;
      const validity = month !== null && year !== null ? ` (valid through ${String(month).padStart(2, '0')}/${year})` : '';
      return `Your ${context.merchantName} subscription renews on ${longDate(occasion.renewsAt)}${amount ? ` for ${amount}` : ''}, but your ${cardName(occasion.card)}${validity} cannot be charged then.`;
    }
  }
}

/** `update_url`: the merchant's page when it is a safe https URL, else the personal link (built by us on the edge URL). */
const updateLink = (context: TemplateContext): string | null => safePaymentUpdateUrl(context.updateUrl) ?? context.personalLink ?? null;

export function renderEmail(templateId: string, context: TemplateContext, subjectOverride?: string): RenderedEmail {
  const { subject, ask } = template(templateId);
  const link = updateLink(context);
  const greeting = context.customerName ? `Hi ${context.customerName},` : 'Hi,';
  const opening = lead(context);
  const lines = [greeting, '', `${opening} ${ask}`];
  if (link) lines.push('', `Update your payment method: ${link}`);
  const html = [
    `<p>${escapeHtml(greeting)}</p>`,
    `<p>${escapeHtml(opening)} ${escapeHtml(ask)}</p>`,
    link ? `<p><a href="${escapeHtml(link)}">Update your payment method</a></p>` : '',
  ].join('');
  return {
    subject: (subjectOverride ?? subject).replaceAll('{merchant}', context.merchantName),
    text: lines.join('\n'),
    html,
  };
}

/** SMS: plain text, as short as the message allows. */
export function renderSms(templateId: string, context: TemplateContext): string {
  const { ask } = template(templateId);
  const link = updateLink(context);
  const opening =
    (context.occasion ?? { kind: 'failure' }).kind === 'failure'
      ? `your payment${context.amount === null ? '' : ` of ${formatMoney(context.amount, context.currency)}`} failed.`
      : lead(context);
  return `${context.merchantName}: ${opening} ${ask}${link ? ` ${link}` : ''}`;
}
