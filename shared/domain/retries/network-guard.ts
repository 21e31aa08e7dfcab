/**
 * Judges an authorization on a card against the networks' retry rules (declines/network-rules.ts) and
 * the card's ledger. Pure: retry-execution.ts reads the ledger, asks here, and writes the ledger back
 * in the transaction that claims the attempt, conditioned on the version it judged.
 */
import {
  BUCKET_SECONDS,
  cardExpiry,
  cardIdentity,
  cardNetwork,
  type CardDescription,
  type CardLedger,
  type CardNetwork,
  type Initiator,
  type LedgerBlock,
  type LedgerBucket,
  type LedgerCounter,
  type NetworkAnswer,
} from '../../model/card-ledger.ts';
import type { PaymentMethod } from '../../model/customer.ts';
import type { NetworkHold } from '../../model/payment.ts';
import { NETWORK_RULES_VERSION, ruleById, rulesInForce, type NetworkRule } from '../declines/network-rules.ts';

export type NetworkVerdict = { allowed: true } | { allowed: false; hold: NetworkHold };

export interface AttemptOnCard {
  ledger: CardLedger;
  network: CardNetwork;
  /** The card's expiry now (`MM/YYYY`): a block set on an earlier expiry was lifted by the card update. */
  cardExpiry: string | null;
  initiator: Initiator;
  at: Date;
}

/** Counted by the ledger for longer than any window needs (30 days), so a window's oldest bucket is always there. */
const KEPT_SECONDS: Readonly<Record<LedgerBucket['unit'], number>> = { h: 25 * 3_600, d: 31 * 86_400 };

const seconds = (at: Date): number => Math.floor(at.getTime() / 1000);

/** Hourly buckets for windows of up to two days, daily ones beyond. */
const unitFor = (windowHours: number): LedgerBucket['unit'] => (windowHours <= 48 ? 'h' : 'd');

/**
 * The buckets a rolling window ending at `at` touches. A bucket partly inside counts whole, so the
 * count is never below the network's (a limit is kept, at the price of waiting up to a bucket longer).
 */
function inWindow(ledger: CardLedger, counter: LedgerCounter, windowHours: number, at: Date): LedgerBucket[] {
  const unit = unitFor(windowHours);
  const start = seconds(at) - windowHours * 3_600;
  return ledger.buckets
    .filter((bucket) => bucket.counter === counter && bucket.unit === unit && (bucket.index + 1) * BUCKET_SECONDS[unit] > start)
    .sort((a, b) => a.index - b.index);
}

/** When a limit's window next holds fewer than `max`: as its oldest buckets leave it. */
function limitReopens(buckets: LedgerBucket[], windowHours: number, max: number): Date {
  let count = buckets.reduce((sum, bucket) => sum + bucket.count, 0);
  for (const bucket of buckets) {
    count -= bucket.count;
    if (count < max) return new Date(((bucket.index + 1) * BUCKET_SECONDS[bucket.unit] + windowHours * 3_600) * 1000);
  }
  throw new Error('a limit that holds has buckets to leave its window');
}

const countsFor = (counter: LedgerCounter, initiator: Initiator): boolean =>
  counter === 'attempts' || counter === (initiator === 'merchant' ? 'merchant_reattempts' : 'customer_reattempts');

const holding = (block: LedgerBlock, cardExpiry: string | null, at: Date): boolean =>
  block.until === null ? block.cardExpiry === null || cardExpiry === null || block.cardExpiry === cardExpiry : at < new Date(block.until);

interface Held {
  rule: NetworkRule;
  nextAllowedAt: Date | null;
}

/** Every rule that forbids the attempt at `attempt.at`, with when it stops forbidding it (null: until the card changes). */
function holdsAt(attempt: AttemptOnCard): Held[] {
  const rules = rulesInForce(attempt.network, attempt.at);
  const held: Held[] = [];
  for (const block of attempt.ledger.blocks) {
    const rule = rules.find((candidate) => candidate.id === block.rule);
    if (rule && holding(block, attempt.cardExpiry, attempt.at)) held.push({ rule, nextAllowedAt: block.until === null ? null : new Date(block.until) });
  }
  for (const rule of rules) {
    const { effect } = rule;
    if (effect.kind !== 'limit' || !countsFor(effect.counter, attempt.initiator)) continue;
    const buckets = inWindow(attempt.ledger, effect.counter, effect.windowHours, attempt.at);
    if (buckets.reduce((sum, bucket) => sum + bucket.count, 0) >= effect.max) held.push({ rule, nextAllowedAt: limitReopens(buckets, effect.windowHours, effect.max) });
  }
  return held;
}

/**
 * Whether the networks allow one more attempt on the card now; if not, the rule that forbids it and
 * the first time no rule does (after one lifts, another may still hold: it is judged again then).
 */
export function judgeAttempt(attempt: AttemptOnCard): NetworkVerdict {
  const held = holdsAt(attempt);
  const first = held.find((hold) => hold.nextAllowedAt === null) ?? held.sort((a, b) => b.nextAllowedAt!.getTime() - a.nextAllowedAt!.getTime())[0];
  if (!first) return { allowed: true };
  let nextAllowedAt = first.nextAllowedAt;
  while (nextAllowedAt !== null) {
    const later = holdsAt({ ...attempt, at: nextAllowedAt });
    if (later.length === 0) break;
    nextAllowedAt = later.some((hold) => hold.nextAllowedAt === null) ? null : new Date(Math.max(...later.map((hold) => hold.nextAllowedAt!.getTime())));
  }
  return { allowed: false, hold: toHold(first.rule, nextAllowedAt, attempt.at) };
}

function toHold(rule: NetworkRule, nextAllowedAt: Date | null, at: Date): NetworkHold {
  return {
    rule: rule.id,
    network: rule.network,
    effect: rule.effect.kind,
    description: rule.description,
    next_allowed_at: nextAllowedAt?.toISOString() ?? null,
    rules_version: NETWORK_RULES_VERSION,
    held_at: at.toISOString(),
    fee_avoided_cents: rule.feeCents,
  };
}

/** The ledger with one more authorization on the card; a retry of a declined payment is also a reattempt. */
export function withAttempt(ledger: CardLedger, initiator: Initiator | null, at: Date): CardLedger {
  const reattempt: LedgerCounter[] = initiator === null ? [] : [initiator === 'merchant' ? 'merchant_reattempts' : 'customer_reattempts'];
  const counters: LedgerCounter[] = ['attempts', ...reattempt];
  const now = seconds(at);
  let buckets = ledger.buckets.filter((bucket) => (bucket.index + 1) * BUCKET_SECONDS[bucket.unit] > now - KEPT_SECONDS[bucket.unit]);
  for (const counter of counters) {
    for (const unit of counter === 'attempts' ? (['h', 'd'] as const) : (['d'] as const)) {
      const index = Math.floor(now / BUCKET_SECONDS[unit]);
      const found = buckets.find((bucket) => bucket.counter === counter && bucket.unit === unit && bucket.index === index);
      buckets = found
        ? buckets.map((bucket) => (bucket === found ? { ...bucket, count: bucket.count + 1 } : bucket))
        : [...buckets, { counter, unit, index, count: 1 }];
    }
  }
  return { ...ledger, buckets };
}

/** The buckets one authorization adds to (what a processor's reported failure counts, without reading the ledger). */
export const attemptBuckets = (initiator: Initiator | null, at: Date): LedgerBucket[] => withAttempt({ buckets: [], blocks: [], version: 0 }, initiator, at).buckets;

/** The blocks a declined authorization's network answer sets on the card, under the rules in force at `at`. */
export function blocksFromAnswer(network: CardNetwork, answer: NetworkAnswer | null, cardExpiry: string | null, at: Date): LedgerBlock[] {
  if (!answer) return [];
  const declineCode = answer.declineCode?.trim().toUpperCase() ?? null;
  const adviceCode = answer.adviceCode?.trim().padStart(2, '0') ?? null;
  return rulesInForce(network, at).flatMap((rule): LedgerBlock[] => {
    const { when, effect } = rule;
    if (when === 'every_attempt' || effect.kind === 'limit') return [];
    const matches = 'declineCodes' in when ? declineCode !== null && when.declineCodes.includes(declineCode) : adviceCode !== null && when.adviceCodes.includes(adviceCode);
    if (!matches) return [];
    const until = effect.kind === 'never' ? null : new Date(at.getTime() + effect.hours * 3_600_000).toISOString();
    return [{ rule: rule.id, until, cardExpiry, setAt: at.toISOString() }];
  });
}

/** Whether the blocks include one that only a card update lifts: the payment goes to the customer (dunning), not to a later retry. */
export const blocksForGood = (blocks: readonly LedgerBlock[]): boolean => blocks.some((block) => block.until === null);

/** The latest time the blocks forbid (null when none is timed). */
export function blockedUntil(blocks: readonly LedgerBlock[]): Date | null {
  const times = blocks.filter((block) => block.until !== null).map((block) => Date.parse(block.until!));
  return times.length === 0 ? null : new Date(Math.max(...times));
}

/** The hold shown on a payment whose own answer set a block (the first that forbids the longest). */
export function holdFromBlocks(blocks: readonly LedgerBlock[], at: Date): NetworkHold | null {
  const block = blocks.find((candidate) => candidate.until === null) ?? [...blocks].sort((a, b) => Date.parse(b.until!) - Date.parse(a.until!))[0];
  const rule = block && ruleById(block.rule);
  return rule ? toHold(rule, block.until === null ? null : new Date(block.until), at) : null;
}

/** The card an attempt charges: the customer's current one (a card update changes it), told apart for the ledger. */
export interface CardOnFile {
  identity: string;
  network: CardNetwork;
  expiry: string | null;
  customerId: string;
}

export function cardOnFile(customerId: string, method: PaymentMethod | null | undefined): CardOnFile {
  const card: CardDescription | null = method
    ? { brand: method.brand, lastFour: method.last_four, expMonth: method.exp_month, expYear: method.exp_year, fingerprint: method.fingerprint ?? null }
    : null;
  return { identity: cardIdentity(card, customerId), network: cardNetwork(card?.brand ?? null), expiry: cardExpiry(card), customerId };
}
