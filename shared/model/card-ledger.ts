/**
 * What the card networks see of a merchant: every authorization on one card, whoever asked for it and
 * for which payment. Their retry rules (domain/declines/network-rules.ts) judge per card, so the
 * service keeps a per-card ledger of recent attempts and the blocks the networks' answers set.
 */

/** The networks whose retry rules the service enforces; `unknown` is judged by all of them, `other` by none. */
export type CardNetwork = 'visa' | 'mastercard' | 'other' | 'unknown';

/** What a card network answered a declined authorization, beside the processor's own code. */
export interface NetworkAnswer {
  /** The network's response code (Visa's `05`, `51`, `R1`), as the processor passes it on. */
  declineCode: string | null;
  /** Mastercard's Merchant Advice Code (`01`, `02`, `03`, `21`, `24`-`30`). */
  adviceCode: string | null;
}

/** The card as the processor describes it; enough to tell it from the customer's other cards. */
export interface CardDescription {
  brand: string | null;
  lastFour: string | null;
  expMonth: number | null;
  expYear: number | null;
  /** The processor's stable id for the card number (Stripe `fingerprint`, Braintree `unique_number_identifier`). */
  fingerprint: string | null;
}

/** Who asked for an authorization: Visa counts merchant- and customer-initiated reattempts apart (since May 2025). */
export type Initiator = 'merchant' | 'customer';

/** What a ledger counts, per hour (`h`) and per UTC day (`d`). */
export type LedgerCounter = 'attempts' | 'merchant_reattempts' | 'customer_reattempts';
export type BucketUnit = 'h' | 'd';
export const BUCKET_SECONDS: Readonly<Record<BucketUnit, number>> = { h: 3_600, d: 86_400 };

export interface LedgerBucket {
  counter: LedgerCounter;
  unit: BucketUnit;
  /** Whole hours (days) since the epoch. */
  index: number;
  count: number;
}

/** A network's answer on this card that forbids attempts: for good (`until` null) or until a time. */
export interface LedgerBlock {
  rule: string;
  /** ISO 8601; null: until the card changes. */
  until: string | null;
  /** The card's expiry (`MM/YYYY`) when the block was set: a card update (new expiry) lifts a block held until the card changes. */
  cardExpiry: string | null;
  setAt: string;
}

export interface CardLedger {
  buckets: LedgerBucket[];
  blocks: LedgerBlock[];
  /** Optimistic-lock counter: a claim is conditioned on the ledger it judged. 0: no ledger yet. */
  version: number;
}

/** A declined charge's `network` field: present only when the processor passed on any of the network's answer. */
export function reportedNetworkAnswer(declineCode: string | null | undefined, adviceCode: string | null | undefined): { network?: NetworkAnswer } {
  return declineCode || adviceCode ? { network: { declineCode: declineCode || null, adviceCode: adviceCode || null } } : {};
}

export const EMPTY_LEDGER: CardLedger = { buckets: [], blocks: [], version: 0 };

export function cardNetwork(brand: string | null): CardNetwork {
  const name = (brand ?? '').toLowerCase().replace(/[^a-z]/g, '');
  if (name === '') return 'unknown';
  if (name.startsWith('visa')) return 'visa';
  if (name.startsWith('master') || name === 'mc') return 'mastercard';
  return 'other';
}

export const cardExpiry = (card: Pick<CardDescription, 'expMonth' | 'expYear'> | null): string | null =>
  card?.expMonth && card.expYear ? `${String(card.expMonth).padStart(2, '0')}/${card.expYear}` : null;

/**
 * The ledger's card: the processor's fingerprint; else brand, last four and expiry; else the customer,
 * whose default card the processor charges. Hashed before it is stored (store/card-ledgers.ts).
 */
export function cardIdentity(card: CardDescription | null, customerId: string): string {
  if (card?.fingerprint) return `fingerprint:${card.fingerprint}`;
  const expiry = cardExpiry(card);
  if (card?.lastFour && expiry) return `card:${cardNetwork(card.brand)}:${card.lastFour}:${expiry}`;
  return `customer:${customerId}`;
}
