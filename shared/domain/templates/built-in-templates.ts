import type { CalendarTrigger, CampaignChannel } from '../../model/campaign.ts';
import type { MessageTemplate } from '../../model/message-template.ts';

/**
 * The built-in templates, written in the same Liquid as merchants' own: one per customer action of
 * §2.6's hard-decline tables, a generic failure notice, and the two calendar reminders (card
 * expiring, renewal on a card that will not work), each as an email (`tpl_<name>`) and an sms
 * (`tpl_<name>_sms`). Their ids are stable: campaigns name them.
 */

/** Which occasion a template speaks about, which decides its opening sentence. */
type Occasion = 'failure' | CalendarTrigger;

interface BuiltIn {
  name: string;
  subject: string;
  /** What the customer should do, in a sentence. */
  ask: string;
  occasion: Occasion;
}

const BUILT_INS: Readonly<Record<string, BuiltIn>> = {
  tpl_payment_failed: { name: 'Payment failed', subject: 'Your payment to {{ merchant_name }} did not go through', ask: 'Please check your payment details so your subscription continues.', occasion: 'failure' },
  tpl_update_payment_method: { name: 'Update payment method', subject: 'Please update your payment method for {{ merchant_name }}', ask: 'Your card can no longer be charged. Please add a new payment method.', occasion: 'failure' },
  tpl_reenter_card_details: { name: 'Re-enter card details', subject: 'Please re-enter your card details for {{ merchant_name }}', ask: 'Some card details did not match. Please enter them again.', occasion: 'failure' },
  tpl_complete_authentication: { name: 'Complete authentication', subject: 'Please confirm your payment to {{ merchant_name }}', ask: 'Your bank asks you to confirm this payment. Please complete the authentication.', occasion: 'failure' },
  tpl_contact_bank: { name: 'Contact bank', subject: 'Your bank declined your payment to {{ merchant_name }}', ask: 'Please contact your bank to allow the payment, then we will try again.', occasion: 'failure' },
  tpl_use_different_card: { name: 'Use a different card', subject: 'Please use a different card for {{ merchant_name }}', ask: 'This card cannot be used for this payment. Please add a different card.', occasion: 'failure' },
  tpl_contact_bank_or_update_card: { name: 'Contact bank or update card', subject: 'Your payment to {{ merchant_name }} was declined', ask: 'Please contact your bank or add a different card.', occasion: 'failure' },
  tpl_contact_merchant: { name: 'Contact merchant', subject: 'About your payment to {{ merchant_name }}', ask: 'Please get in touch with us about this payment.', occasion: 'failure' },
  tpl_use_real_card: { name: 'Use a real card', subject: 'Please use a real card for {{ merchant_name }}', ask: 'A test card was used. Please add a real card.', occasion: 'failure' },
  tpl_use_test_card: { name: 'Use a test-approved card', subject: 'Please use a test-approved card for {{ merchant_name }}', ask: 'Please use a card approved for testing.', occasion: 'failure' },
  tpl_add_funds: { name: 'Add funds', subject: 'Your payment to {{ merchant_name }} was declined', ask: 'Please add funds to your account or use a different card.', occasion: 'failure' },
  tpl_update_funding_source: { name: 'Update funding source', subject: 'Please update your funding source for {{ merchant_name }}', ask: 'Please update the account this payment is drawn from.', occasion: 'failure' },
  tpl_contact_wallet_provider: { name: 'Contact wallet provider', subject: 'Your wallet declined your payment to {{ merchant_name }}', ask: 'Please contact your wallet provider, or add a different payment method.', occasion: 'failure' },
  tpl_card_expiring: { name: 'Card expiring', subject: 'Your card for {{ merchant_name }} expires soon', ask: 'Please update your card before your next renewal so your subscription continues.', occasion: 'card_expiring' },
  tpl_upcoming_renewal: {
    name: 'Upcoming renewal',
    subject: 'Please update your card before your {{ merchant_name }} renewal',
    ask: 'Please update your card before the renewal so your subscription continues without interruption.',
    occasion: 'pre_dunning',
  },
};

const CARD = '{{ card | default: "card on file" }}';

/** The opening sentence: what happened or is about to. */
const LEAD: Readonly<Record<Occasion, string>> = {
  failure: 'We could not collect your payment{% if formatted_amount %} of {{ formatted_amount }}{% endif %} to {{ merchant_name }}.',
  card_expiring: `Your ${CARD}, which pays for your {{ merchant_name }} subscription{% if formatted_amount %} ({{ formatted_amount }}){% endif %}, expires{% if card_expiry %} at the end of {{ card_expiry }}{% else %} soon{% endif %}.`,
  pre_dunning: `Your {{ merchant_name }} subscription renews{% if renewal_date %} on {{ renewal_date }}{% endif %}{% if formatted_amount %} for {{ formatted_amount }}{% endif %}, but your ${CARD}{% if card_expiry %} (expires {{ card_expiry }}){% endif %} cannot be charged then.`,
};

/** SMS say less: the failure in five words, a calendar reminder as in the email. */
const SMS_LEAD: Readonly<Record<Occasion, string>> = {
  ...LEAD,
  failure: 'your payment{% if formatted_amount %} of {{ formatted_amount }}{% endif %} failed.',
};

const GREETING = 'Hi{% if customer_name %} {{ customer_name }}{% endif %},';

/** The link, when there is one; the HTML escapes it (an attribute value), the text shows it as is. */
const emailText = (b: BuiltIn) => `${GREETING}\n\n${LEAD[b.occasion]} ${b.ask}{% if update_url %}\n\nUpdate your payment method: {{ update_url }}{% endif %}`;
const emailHtml = (b: BuiltIn) =>
  `<p>${GREETING}</p><p>${LEAD[b.occasion]} ${b.ask}</p>{% if update_url %}<p><a href="{{ update_url }}">Update your payment method</a></p>{% endif %}`;
const smsText = (b: BuiltIn) => `{{ merchant_name }}: ${SMS_LEAD[b.occasion]} ${b.ask}{% if update_url %} {{ update_url }}{% endif %}`;

/** Built-in templates have no creation time of their own: the day templates became a resource. */
const SINCE = '2026-11-26T00:00:00.000Z';

const SMS_SUFFIX = '_sms';

function builtIns(): Map<string, MessageTemplate> {
  const all = new Map<string, MessageTemplate>();
  const common = { built_in: true, created_at: SINCE, updated_at: SINCE, version: 0 };
  for (const [id, b] of Object.entries(BUILT_INS)) {
    all.set(id, { id, channel: 'email', name: b.name, subject: b.subject, html: emailHtml(b), text: emailText(b), ...common });
    all.set(`${id}${SMS_SUFFIX}`, { id: `${id}${SMS_SUFFIX}`, channel: 'sms', name: `${b.name} (sms)`, subject: null, html: null, text: smsText(b), ...common });
  }
  return all;
}

const TEMPLATES = builtIns();

/** Email templates first, each followed by its sms twin, in the table's order. */
export const BUILT_IN_TEMPLATES: readonly MessageTemplate[] = [...TEMPLATES.values()];

export const builtInTemplate = (id: string): MessageTemplate | undefined => TEMPLATES.get(id);

export const isBuiltInTemplate = (id: string): boolean => TEMPLATES.has(id);

/**
 * The built-in a step sends on its channel. Campaigns saved before templates had a channel named the
 * email id on sms steps too; such a step sends the sms twin.
 */
export function builtInFor(id: string, channel: CampaignChannel): MessageTemplate | undefined {
  const template = TEMPLATES.get(id);
  if (!template || template.channel === channel) return template;
  return channel === 'sms' ? TEMPLATES.get(`${id}${SMS_SUFFIX}`) : TEMPLATES.get(id.slice(0, -SMS_SUFFIX.length));
}

/** The reminders that speak about a card and a date rather than a failure; each calendar trigger's default. */
const CALENDAR_TEMPLATES: Readonly<Record<CalendarTrigger, string>> = { card_expiring: 'tpl_card_expiring', pre_dunning: 'tpl_upcoming_renewal' };

const isCalendarReminder = (id: string): boolean => Object.values(CALENDAR_TEMPLATES).some((reminder) => id === reminder || id === `${reminder}${SMS_SUFFIX}`);

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

/**
 * The built-in a calendar step uses: its own when it is one of the calendar reminders, otherwise the
 * trigger's reminder, since a failure template would tell the customer a payment failed that never did.
 */
export function calendarTemplate(templateId: string, trigger: CalendarTrigger): string {
  return isCalendarReminder(templateId) ? templateId : CALENDAR_TEMPLATES[trigger];
}
