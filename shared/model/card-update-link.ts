import { createHash, randomBytes } from 'node:crypto';
import type { CampaignChannel } from './campaign.ts';
import type { Customer } from './customer.ts';
import type { Environment } from './tenant.ts';
import type { TestCardField, TestCardForm } from './test-cards.ts';

/**
 * A personal card-update link (`{edge_url}/update/{token}`), one per dunning message: it opens the
 * customer's card-update page without a login. Only the token's hash is stored, like a cancel
 * session's; the link names the message that carried it, for the funnel (links sent → pages opened →
 * cards updated → payments recovered).
 */
export interface CardUpdateLink {
  link_id: string;
  merchant_id: string;
  environment: Environment;
  customer_id: string;
  campaign_id: string;
  enrollment_id: string;
  payment_id: string | null;
  channel: CampaignChannel;
  issued_at: string;
  /** The first time the page was opened through it. */
  opened_at: string | null;
}

/** A link outlives the customer's last open failure by this much after its message was sent. */
export const LINK_VALID_DAYS_AFTER_MESSAGE = 14;

/** Whatever stays open, a link dies this long after its message (and the table's TTL removes it). */
export const LINK_MAX_AGE_DAYS = 180;

/** 16 random bytes in base64url: 128 bits, 22 characters, short enough for an sms. */
export const LINK_TOKEN_PATTERN = /^[A-Za-z0-9_-]{22}$/;

export const newLinkToken = (): string => randomBytes(16).toString('base64url');

/** Only this is stored: a leaked table or log never yields a usable link. A fast hash is right for 128 random bits. */
export const linkTokenHash = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

const DAY_MS = 86_400_000;

/** When the link's TTL removes it: its hard end. */
export const linkExpiresAt = (issuedAt: string): number => Math.ceil((Date.parse(issuedAt) + LINK_MAX_AGE_DAYS * DAY_MS) / 1000);

/**
 * Whether the link still opens the page: while the customer has an open failure, or until 14 days
 * after its message, whichever is later (never past the hard end). An erased customer's links are dead.
 */
export function linkUsable(link: Pick<CardUpdateLink, 'issued_at'>, customer: Pick<Customer, 'failed_payments'> | undefined, now: Date): boolean {
  if (!customer) return false;
  const issued = Date.parse(link.issued_at);
  if (now.getTime() >= issued + LINK_MAX_AGE_DAYS * DAY_MS) return false;
  return customer.failed_payments > 0 || now.getTime() < issued + LINK_VALID_DAYS_AFTER_MESSAGE * DAY_MS;
}

/** One open failure as the page shows it: what is owed, and for which plan. */
export interface OwedLine {
  amount: number;
  currency: string;
  plan: string | null;
}

/** How the card is given on this page. */
export type CardEntry =
  | { kind: 'test_form'; values?: Partial<TestCardForm>; problem?: { field: TestCardField; message: string } }
  | { kind: 'stripe_checkout'; problem?: string }
  | { kind: 'braintree_drop_in'; clientToken: string; problem?: string }
  /** Generic processors: the merchant's own page, or support. */
  | { kind: 'elsewhere'; paymentUpdateUrl: string | null }
  | { kind: 'done'; retried: number };

