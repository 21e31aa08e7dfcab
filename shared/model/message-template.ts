import type { CampaignChannel } from './campaign.ts';

/**
 * Message templates (issue 23): what a dunning step sends. The built-in ones come with the engine;
 * merchants write their own in Liquid (domain/templates/template-language.ts) over the variables
 * below, the only names a template may use.
 */
export interface MessageTemplate {
  /** `tpl_` + 26 characters for a merchant's, a readable name for a built-in one. */
  id: string;
  channel: CampaignChannel;
  name: string;
  /** Email only: the subject line (Liquid, plain text). */
  subject: string | null;
  /** Email only: the HTML body (Liquid; every output escaped unless it is a literal of the template). */
  html: string | null;
  /** The plain-text body (email) or the message (sms). */
  text: string;
  built_in: boolean;
  created_at: string;
  updated_at: string;
  /** Optimistic lock; built-in templates have 0. */
  version: number;
}

export const TEMPLATE_LIMITS = { nameLength: 100, subjectLength: 200, htmlLength: 50_000, textLength: 10_000, smsTextLength: 1_600 } as const;

/** Documented in docs/templates.md; a template naming anything else is refused when saved. */
export const TEMPLATE_VARIABLES = {
  customer_name: 'The customer\'s name, or nil when unknown (use `| default: "there"`).',
  customer_email: 'The customer\'s email address, or nil.',
  amount: 'The amount owed in the currency\'s smallest unit (1999 for $19.99), or nil.',
  currency: 'The currency, uppercase (USD).',
  formatted_amount: 'The amount with its currency for people ($19.99, €5.00), or nil.',
  merchant_name: 'The merchant\'s name from its branding.',
  support_email: 'The merchant\'s support address from its branding, or nil.',
  update_url: 'Where the customer updates their payment method, or nil when there is none.',
  days_since_failure: 'Whole days since the payment failed (0 on the day), or nil for calendar reminders.',
  plan: 'The subscription\'s plan, or nil.',
  card: 'The card on file in words (Visa card ending in 4242), or nil.',
  card_expiry: 'When the card on file expires (March 2027), or nil.',
  renewal_date: 'The next renewal date (December 1, 2026), for renewal reminders; nil otherwise.',
} as const;

export type TemplateVariable = keyof typeof TEMPLATE_VARIABLES;

/** The values a template is rendered with: every variable present, nil (null) when unknown. */
export type TemplateValues = Record<TemplateVariable, string | number | null>;

export const isTemplateVariable = (name: string): name is TemplateVariable => Object.hasOwn(TEMPLATE_VARIABLES, name);

// SMS length (3GPP TS 23.038) ----------------------------------------------------------------------

const GSM7_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
/** Sent as an escape and the character: two septets each. */
const GSM7_EXTENSION = '\f^{}\\[~]|€';

const GSM7_BASIC_SET = new Set(GSM7_BASIC);
const GSM7_EXTENSION_SET = new Set(GSM7_EXTENSION);

export type SmsEncoding = 'gsm7' | 'ucs2';

export interface SmsLength {
  encoding: SmsEncoding;
  /** Septets (GSM-7, an extension character counting two) or UTF-16 code units (UCS-2). */
  units: number;
  segments: number;
}

/** 160 septets or 70 UCS-2 units fit one message; a longer one is split in parts of 153 or 67 (the rest is the part header). */
const LIMITS: Readonly<Record<SmsEncoding, { single: number; part: number }>> = { gsm7: { single: 160, part: 153 }, ucs2: { single: 70, part: 67 } };

/**
 * How many messages a text costs. Parts are filled greedily, and a unit pair that must stay together
 * (an escaped extension character, a surrogate pair) moves whole to the next part, as phones and
 * gateways split them.
 */
export function smsLength(text: string): SmsLength {
  const characters = [...text];
  const gsm = characters.every((c) => GSM7_BASIC_SET.has(c) || GSM7_EXTENSION_SET.has(c));
  const encoding: SmsEncoding = gsm ? 'gsm7' : 'ucs2';
  const costs = characters.map((c) => (gsm ? (GSM7_EXTENSION_SET.has(c) ? 2 : 1) : c.length));
  const units = costs.reduce((sum, cost) => sum + cost, 0);
  const { single, part } = LIMITS[encoding];
  if (units <= single) return { encoding, units, segments: units === 0 ? 0 : 1 };
  let segments = 1;
  let filled = 0;
  for (const cost of costs) {
    if (filled + cost > part) {
      segments += 1;
      filled = 0;
    }
    filled += cost;
  }
  return { encoding, units, segments };
}
