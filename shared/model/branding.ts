import { paymentUpdateUrlProblem } from './payment-update-url.ts';

/**
 * How a merchant's messages and pages look to its customers: the name they know, a logo, one accent
 * colour, and where to write for help. Per tenant (a merchant may brand its test mode apart).
 */
export interface Branding {
  /** Shown as the sender of messages and the title of pages. */
  name: string;
  /** An https image URL, or null for none (text only). */
  logo_url: string | null;
  /** `#rrggbb`, lowercase. */
  accent_color: string;
  /** Named in every email's footer and on pages; null when the merchant gave none. */
  support_email: string | null;
}

/** A stored branding: what the merchant set, when, and the version its next change is conditioned on. */
export interface StoredBranding extends Branding {
  version: number;
  updated_at: string;
}

export const BRANDING_LIMITS = { nameLength: 100, logoUrlLength: 2048, supportEmailLength: 254 } as const;

/** A neutral blue that passes WCAG AA as a button colour behind white text. */
export const DEFAULT_ACCENT_COLOR = '#2251c8';

export const ACCENT_COLOR_PATTERN = /^#[0-9a-f]{6}$/;

/** A practical address check (one @, a dotted domain, no spaces); deliverability is the mail provider's to judge. */
export const SUPPORT_EMAIL_PATTERN = /^[^\s@<>()[\]",;:]+@[^\s@<>()[\]",;:]+\.[A-Za-z]{2,}$/;

/** What a merchant that never set its branding gets: its own name, no logo, the default colour, no support address. */
export const defaultBranding = (merchantName: string): Branding => ({
  name: merchantName,
  logo_url: null,
  accent_color: DEFAULT_ACCENT_COLOR,
  support_email: null,
});

/** Why `branding` cannot be stored, as a field and a reason, or null when it can. */
export function brandingProblem(branding: Branding): { field: keyof Branding; reason: string } | null {
  if (branding.name.trim() === '' || branding.name.length > BRANDING_LIMITS.nameLength) {
    return { field: 'name', reason: `must be 1 to ${BRANDING_LIMITS.nameLength} characters` };
  }
  if (branding.logo_url !== null) {
    // The same rules as the payment-update link: a customer sees it, so https to a named host only.
    const problem = paymentUpdateUrlProblem(branding.logo_url);
    if (problem) return { field: 'logo_url', reason: problem };
  }
  if (!ACCENT_COLOR_PATTERN.test(branding.accent_color)) return { field: 'accent_color', reason: 'must be a colour as #rrggbb (lowercase hex)' };
  if (branding.support_email !== null) {
    if (branding.support_email.length > BRANDING_LIMITS.supportEmailLength || !SUPPORT_EMAIL_PATTERN.test(branding.support_email)) {
      return { field: 'support_email', reason: 'must be an email address' };
    }
  }
  return null;
}
