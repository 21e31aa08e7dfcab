/**
 * The card network rules bench: a simulated portfolio (cards of both networks, each with one to three
 * failing subscriptions over 60 days, failures drawn across the spec's decline tables and the networks'
 * answers) run through the real retry policy (classifyDecline, nextRetryAt) with the network guard, and
 * the same portfolio under a naive fixed schedule (Stripe's documented default: up to 8 tries in 2
 * weeks, whatever the decline). Every attempt is checked against the rules table by an independent
 * reading of each card's raw history (test/support/network-history.ts); fees are the networks'
 * published per-attempt fees, an estimate.
 */
import { seededRandom } from '../shared/adapters/local/port-faults.ts';
import { classifyDecline } from '../shared/domain/declines/decline-classification.ts';
import { PROCESSOR_TABLES } from '../shared/domain/declines/decline-tables.ts';
import { ruleById } from '../shared/domain/declines/network-rules.ts';
import { blocksFromAnswer, blocksForGood, blockedUntil, judgeAttempt, withAttempt } from '../shared/domain/retries/network-guard.ts';
import { nextRetryAt } from '../shared/domain/retries/retry-policy.ts';
import { EMPTY_LEDGER, type CardLedger, type NetworkAnswer } from '../shared/model/card-ledger.ts';
import { ruleBroken, type Authorization } from '../test/support/network-history.ts';

const HOUR = 3_600_000;
const START = Date.parse('2026-10-01T00:00:00Z');
const EXPIRY = '12/2030';

type Network = 'visa' | 'mastercard';
interface Failure {
  at: number;
  psp: 'stripe' | 'braintree';
  code: string;
  network: Network;
  answer: NetworkAnswer;
}

const pick = <T>(draw: () => number, values: readonly T[]): T => values[Math.floor(draw() * values.length)]!;

/** The networks' answers, roughly as issuers give them: mostly no advice, some waits, a few "never". */
function networkAnswer(draw: () => number, network: Network): NetworkAnswer {
  const roll = draw();
  if (network === 'visa') return { declineCode: roll < 0.06 ? pick(draw, ['04', '14', '41', '43', '46', 'R1']) : pick(draw, ['05', '51', '61']), adviceCode: null };
  const adviceCode = roll < 0.6 ? null : roll < 0.8 ? '02' : roll < 0.9 ? pick(draw, ['24', '25', '26', '27']) : roll < 0.95 ? '03' : pick(draw, ['01', '21']);
  return { declineCode: pick(draw, ['05', '51']), adviceCode };
}

/** How likely an attempt is to be paid: by the decline's subcategory; never when the issuer said never. */
function paidChance(psp: string, code: string, answer: NetworkAnswer, network: Network): number {
  if (blocksForGood(blocksFromAnswer(network, answer, EXPIRY, new Date(START)))) return 0;
  const classification = classifyDecline(psp, code);
  if (classification.category !== 'soft_retry') return classification.category === 'unknown' ? 0.05 : 0;
  return ({ Balance: 0.25, 'Issuer Temporary': 0.35, 'Rate Limit': 0.2, Generic: 0.15 } as Record<string, number>)[classification.subcategory ?? ''] ?? 0.15;
}

interface Tally {
  attempts: number;
  violations: number;
  recoveries: number;
  held: number;
  fees_cents: number;
  violations_by_rule: Record<string, number>;
}

const emptyTally = (): Tally => ({ attempts: 0, violations: 0, recoveries: 0, held: 0, fees_cents: 0, violations_by_rule: {} });

function countViolation(tally: Tally, history: Authorization[], network: Network, at: number): void {
  const broken = ruleBroken(history, network, EXPIRY, at);
  if (!broken) return;
  tally.violations += 1;
  tally.fees_cents += ruleById(broken)!.feeCents;
  tally.violations_by_rule[broken] = (tally.violations_by_rule[broken] ?? 0) + 1;
}

interface Pending {
  failure: Failure;
  next: number | null;
  tries: number;
}

/** One card's failures retried by the service's policy, each attempt judged by the guard. */
function guarded(network: Network, failures: Failure[], draw: () => number, tally: Tally): void {
  let ledger: CardLedger = EMPTY_LEDGER;
  const history: Authorization[] = [];
  const open: Pending[] = [];
  const report = (at: number, ours: boolean, answer: NetworkAnswer) => {
    ledger = withAttempt(ledger, ours ? 'merchant' : null, new Date(at));
    const blocks = blocksFromAnswer(network, answer, EXPIRY, new Date(at));
    ledger = { ...ledger, blocks: [...ledger.blocks.filter((block) => !blocks.some((set) => set.rule === block.rule)), ...blocks] };
    history.push({ at, ours, initiator: 'merchant', expiry: EXPIRY, ...answer });
    return blocks;
  };
  const schedule = (pending: Pending, at: number, blocks: ReturnType<typeof report>) => {
    const row = classifyDecline(pending.failure.psp, pending.failure.code);
    if (row.category !== 'soft_retry' || row.cooldownHours === null || pending.tries >= row.maxRetries || blocksForGood(blocks)) return null;
    const until = blockedUntil(blocks)?.getTime() ?? 0;
    const policy = nextRetryAt({ failedAt: new Date(at), cooldownHours: row.cooldownHours, subcategory: row.subcategory, timeZone: 'Europe/Berlin' }).getTime();
    return policy >= until ? policy : nextRetryAt({ failedAt: new Date(until), cooldownHours: 0, subcategory: row.subcategory, timeZone: 'Europe/Berlin' }).getTime();
  };
  const queue = [...failures].sort((a, b) => a.at - b.at);
  for (;;) {
    const due = open.filter((pending) => pending.next !== null).sort((a, b) => a.next! - b.next!)[0];
    const failure = queue[0];
    if (!due && !failure) return;
    if (failure && (!due || failure.at <= due.next!)) {
      queue.shift();
      const pending: Pending = { failure, next: null, tries: 0 };
      pending.next = schedule(pending, failure.at, report(failure.at, false, failure.answer));
      open.push(pending);
      continue;
    }
    const at = due!.next!;
    const verdict = judgeAttempt({ ledger, network, cardExpiry: EXPIRY, initiator: 'merchant', at: new Date(at) });
    if (!verdict.allowed) {
      tally.held += 1;
      const reopen = verdict.hold.next_allowed_at;
      due!.next = reopen === null ? null : nextRetryAt({ failedAt: new Date(reopen), cooldownHours: 0, subcategory: 'Generic', timeZone: 'Europe/Berlin' }).getTime();
      continue;
    }
    tally.attempts += 1;
    countViolation(tally, history, network, at);
    due!.tries += 1;
    if (draw() < paidChance(due!.failure.psp, due!.failure.code, due!.failure.answer, network)) {
      history.push({ at, ours: true, initiator: 'merchant', expiry: EXPIRY, declineCode: null, adviceCode: null });
      ledger = withAttempt(ledger, 'merchant', new Date(at));
      tally.recoveries += 1;
      due!.next = null;
      continue;
    }
    due!.next = schedule(due!, at, report(at, true, due!.failure.answer));
  }
}

/** Stripe's documented default: up to 8 tries within 2 weeks of the failure, whatever the decline. */
const NAIVE_OFFSETS_HOURS = [12, 36, 72, 120, 168, 216, 276, 336];

function naive(network: Network, failures: Failure[], draw: () => number, tally: Tally): void {
  const history: Authorization[] = failures.map((failure) => ({ at: failure.at, ours: false, initiator: 'merchant', expiry: EXPIRY, ...failure.answer }));
  const attempts = failures
    .flatMap((failure) => NAIVE_OFFSETS_HOURS.map((offset) => ({ failure, at: failure.at + offset * HOUR })))
    .sort((a, b) => a.at - b.at);
  const paid = new Set<Failure>();
  for (const { failure, at } of attempts) {
    if (paid.has(failure)) continue;
    tally.attempts += 1;
    const before = history.filter((auth) => auth.at <= at);
    countViolation(tally, before, network, at);
    if (draw() < paidChance(failure.psp, failure.code, failure.answer, network)) {
      paid.add(failure);
      tally.recoveries += 1;
      history.push({ at, ours: true, initiator: 'merchant', expiry: EXPIRY, declineCode: null, adviceCode: null });
    } else {
      history.push({ at, ours: true, initiator: 'merchant', expiry: EXPIRY, ...failure.answer });
    }
  }
}

export function benchNetworkRules(cards: number, seed = 25) {
  const draw = seededRandom(seed);
  const codes = { stripe: Object.keys(PROCESSOR_TABLES.stripe!), braintree: Object.keys(PROCESSOR_TABLES.braintree!) };
  const portfolio = Array.from({ length: cards }, () => {
    const network: Network = draw() < 0.55 ? 'visa' : 'mastercard';
    const failures = Array.from({ length: 1 + Math.floor(draw() * 3) }, (): Failure => {
      const psp = draw() < 0.7 ? 'stripe' : 'braintree';
      return { at: START + Math.floor(draw() * 60 * 24) * HOUR, psp, code: pick(draw, codes[psp]), network, answer: networkAnswer(draw, network) };
    });
    return { network, failures };
  });
  const withGuard = emptyTally();
  const fixed = emptyTally();
  const started = performance.now();
  for (const card of portfolio) guarded(card.network, card.failures, seededRandom(seed + card.failures[0]!.at), withGuard);
  const guardMs = performance.now() - started;
  for (const card of portfolio) naive(card.network, card.failures, seededRandom(seed + card.failures[0]!.at), fixed);
  return {
    cards,
    payments: portfolio.reduce((sum, card) => sum + card.failures.length, 0),
    visa_cards: portfolio.filter((card) => card.network === 'visa').length,
    guarded: { ...withGuard, ms: Math.round(guardMs) },
    naive_8_in_14_days: fixed,
    fees_note: "estimate: each violation at the network's published US fee (Visa US$0.10, Mastercard advice codes US$0.10, Mastercard attempt limits US$0.50)",
  };
}
