import type { Branding } from '../../model/branding.ts';
import type { Customer, PaymentMethod } from '../../model/customer.ts';
import type { Payment } from '../../model/payment.ts';
import type { MessageTemplate, TemplateValues } from '../../model/message-template.ts';
import { safePaymentUpdateUrl } from '../../model/payment-update-url.ts';
import { formatMoney } from '../../model/money.ts';
import { renderSource } from './template-language.ts';

/**
 * From what a message is about to what it says: the template's variables filled from the customer,
 * the failure and the merchant's branding, the template rendered, and an email put in the merchant's
 * branded frame with its transactional footer.
 */

/** What a message is about: a failed payment, or a calendar occasion and the card it concerns. */
export type MessageOccasion = { kind: 'failure'; failedAt: string | null } | { kind: 'card_expiring' } | { kind: 'pre_dunning'; renewsAt: string };

export interface MessageFacts {
  customerName: string | null;
  customerEmail: string | null;
  /** The failed amount, or what the renewal charges; null when unknown. */
  amount: number | null;
  currency: string;
  plan: string | null;
  card: PaymentMethod | null;
  /** The merchant's own payment-update page (its setting); left out when unset or not an https URL. */
  updateUrl: string | null;
  /** The customer's personal link to our card-update page, used when the merchant's page is not. */
  personalLink?: string | null;
  occasion: MessageOccasion;
}

/** What a message about a failed payment (or, without one, about the customer's account) says. */
export function failureFacts(customer: Customer, payment: Payment | undefined, updateUrl: string | null): MessageFacts {
  const subscription = payment && customer.subscriptions.find((s) => s.id === payment.subscription_id || s.psp_subscription_id === payment.psp_subscription_id);
  return {
    customerName: customer.name,
    customerEmail: customer.email,
    amount: payment?.amount ?? null,
    currency: payment?.currency ?? customer.primary_currency ?? 'usd',
    plan: subscription?.plan ?? null,
    card: customer.payment_method,
    updateUrl,
    occasion: { kind: 'failure', failedAt: payment?.created_at ?? null },
  };
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

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * 'December 2027' or 'December 5, 2027' (UTC), as toLocaleDateString('en-US') writes them, without
 * Intl: its first date format loads ICU's data, some 30 ms of the cold start of every function that
 * renders a message. Years outside 1000-9999 and invalid dates, which no card or renewal has, are Intl's.
 */
function englishDate(date: Date, withDay: boolean): string {
  const year = date.getUTCFullYear();
  if (!(year >= 1000 && year <= 9999)) {
    return date.toLocaleDateString('en-US', { month: 'long', ...(withDay ? { day: 'numeric' } : {}), year: 'numeric', timeZone: 'UTC' });
  }
  const month = MONTHS[date.getUTCMonth()]!;
  return withDay ? `${month} ${date.getUTCDate()}, ${year}` : `${month} ${year}`;
}

const monthYear = (year: number, month: number): string => englishDate(new Date(Date.UTC(year, month - 1, 1)), false);
const longDate = (at: string): string => englishDate(new Date(at), true);

const DAY_MS = 86_400_000;

/** Every variable of TEMPLATE_VARIABLES, null where the facts do not say. */
export function templateValues(facts: MessageFacts, branding: Branding, now: Date): TemplateValues {
  const { card, occasion } = facts;
  return {
    customer_name: facts.customerName,
    customer_email: facts.customerEmail,
    amount: facts.amount,
    currency: facts.currency.toUpperCase(),
    formatted_amount: facts.amount === null ? null : formatMoney(facts.amount, facts.currency),
    merchant_name: branding.name,
    support_email: branding.support_email,
    update_url: safePaymentUpdateUrl(facts.updateUrl) ?? facts.personalLink ?? null,
    days_since_failure:
      occasion.kind === 'failure' && occasion.failedAt !== null ? Math.max(0, Math.floor((now.getTime() - Date.parse(occasion.failedAt)) / DAY_MS)) : null,
    plan: facts.plan,
    card: card === null ? null : cardName(card),
    card_expiry: card !== null && card.exp_month !== null && card.exp_year !== null ? monthYear(card.exp_year, card.exp_month) : null,
    renewal_date: occasion.kind === 'pre_dunning' ? longDate(occasion.renewsAt) : null,
  };
}

/** What previews render when no customer is named: a plausible failure of $19.99, four days ago. */
export function sampleFacts(now: Date): MessageFacts {
  return {
    customerName: 'Jane Doe',
    customerEmail: 'jane@example.com',
    amount: 1999,
    currency: 'usd',
    plan: 'Pro (monthly)',
    card: { type: 'card', brand: 'visa', last_four: '4242', exp_month: 12, exp_year: now.getUTCFullYear() + 1 },
    updateUrl: 'https://billing.example.com/update',
    occasion: { kind: 'failure', failedAt: new Date(now.getTime() - 4 * DAY_MS).toISOString() },
  };
}

export interface RenderedEmail {
  channel: 'email';
  subject: string;
  text: string;
  html: string;
}

export interface RenderedSms {
  channel: 'sms';
  text: string;
}

export type RenderedMessage = RenderedEmail | RenderedSms;

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

/**
 * The transactional footer: says why the customer gets the message (no unsubscribe link: it is about
 * their own payment) and where to ask. Plain text; escaped where it goes into HTML.
 */
function footerLines(branding: Branding): string[] {
  const why = `You are receiving this because of a payment for your ${branding.name} subscription. This is a service message about your account.`;
  return branding.support_email ? [why, `Questions? Write to ${branding.support_email}.`] : [why];
}

/** A table layout with inline styles, the form email clients render alike; the merchant's body goes in the middle. */
function brandedHtml(body: string, branding: Branding): string {
  const name = escapeHtml(branding.name);
  const accent = branding.accent_color;
  const logo = branding.logo_url
    ? `<img src="${escapeHtml(branding.logo_url)}" alt="${name}" height="40" style="display:block;height:40px;max-width:200px;border:0">`
    : `<span style="font-size:20px;font-weight:bold;color:${accent}">${name}</span>`;
  const [why] = footerLines(branding);
  const support = branding.support_email
    ? `<br>Questions? Write to <a href="mailto:${escapeHtml(branding.support_email)}" style="color:${accent}">${escapeHtml(branding.support_email)}</a>.`
    : '';
  return [
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">',
    `<title>${name}</title><style>a{color:${accent}}</style></head>`,
    '<body style="margin:0;padding:0;background:#f4f5f7">',
    '<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f5f7"><tr><td align="center" style="padding:24px 12px">',
    `<table role="presentation" width="600" cellpadding="0" cellspacing="0" style="width:100%;max-width:600px;background:#ffffff;border-top:4px solid ${accent};font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;font-size:16px;line-height:1.5;color:#1f2933">`,
    `<tr><td style="padding:24px 24px 8px">${logo}</td></tr>`,
    `<tr><td style="padding:8px 24px 24px">${body}</td></tr>`,
    `<tr><td style="padding:16px 24px;border-top:1px solid #e4e7eb;font-size:12px;line-height:1.5;color:#52606d">${escapeHtml(why!)}${support}</td></tr>`,
    '</table></td></tr></table></body></html>',
  ].join('');
}

/** An email written as text only gets its HTML body from the text: paragraphs at blank lines, escaped. */
const paragraphs = (text: string): string =>
  text
    .trim()
    .split(/\n\s*\n/)
    .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/\n/g, '<br>')}</p>`)
    .join('');

/** Renders a template for one message; an email gets the branded frame and footer, in both bodies. */
export function renderMessage(template: MessageTemplate, values: TemplateValues, branding: Branding, subjectOverride?: string): RenderedMessage {
  const text = renderSource('text', template.text, 'plain', values);
  if (template.channel === 'sms') return { channel: 'sms', text };
  const subject = subjectOverride ?? renderSource('subject', template.subject ?? '', 'plain', values);
  const body = template.html === null ? paragraphs(text) : renderSource('html', template.html, 'html', values);
  return {
    channel: 'email',
    subject: subject.replace(/\s+/g, ' ').trim(),
    text: [text.trimEnd(), '', '--', ...footerLines(branding)].join('\n'),
    html: brandedHtml(body, branding),
  };
}
