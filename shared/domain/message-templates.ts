import { formatMoney } from './money.ts';

/**
 * Built-in dunning templates: one per customer action of §2.6's hard-decline tables, plus a generic
 * failure notice and a card-expiring reminder. Every value from outside is escaped for HTML.
 */
export interface TemplateContext {
  customerName: string | null;
  merchantName: string;
  amount: number;
  currency: string;
  /** Where the customer updates their payment method; omitted from the message when unknown. */
  updateUrl: string | null;
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
};

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

export function renderEmail(templateId: string, context: TemplateContext, subjectOverride?: string): RenderedEmail {
  const { subject, ask } = template(templateId);
  const amount = formatMoney(context.amount, context.currency);
  const greeting = context.customerName ? `Hi ${context.customerName},` : 'Hi,';
  const lines = [greeting, '', `We could not collect your payment of ${amount} to ${context.merchantName}. ${ask}`];
  if (context.updateUrl) lines.push('', `Update your payment method: ${context.updateUrl}`);
  const html = [
    `<p>${escapeHtml(greeting)}</p>`,
    `<p>We could not collect your payment of ${escapeHtml(amount)} to ${escapeHtml(context.merchantName)}. ${escapeHtml(ask)}</p>`,
    context.updateUrl ? `<p><a href="${escapeHtml(context.updateUrl)}">Update your payment method</a></p>` : '',
  ].join('');
  return {
    subject: (subjectOverride ?? subject).replaceAll('{merchant}', context.merchantName),
    text: lines.join('\n'),
    html,
  };
}

/** SMS: one short segment-friendly line (no HTML; SMS is plain text). */
export function renderSms(templateId: string, context: TemplateContext): string {
  const { ask } = template(templateId);
  const amount = formatMoney(context.amount, context.currency);
  const link = context.updateUrl ? ` ${context.updateUrl}` : '';
  return `${context.merchantName}: your payment of ${amount} failed. ${ask}${link}`;
}
