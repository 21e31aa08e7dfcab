/**
 * Decline classification (spec §2.6): maps a processor's raw decline code to category, subcategory and
 * retry parameters. Pure; the tables themselves are data in decline-tables.ts.
 */
import {
  GENERIC_PATTERNS,
  GENERIC_RETRY_DEFAULTS,
  PROCESSOR_TABLES,
  type GenericSoftRetrySubcategory,
  type ProcessorRow,
} from './decline-tables.ts';
import type { DeclineCategory } from '../../model/payment.ts';

/**
 * Recorded on every payment so a classification can be explained after the tables change (§9).
 * Bump on any change to decline-tables.ts: `<date>.<n>`, n counting changes made that day.
 */
export const DECLINE_MAPPING_VERSION = '2026-11-21.1';

export interface DeclineClassification {
  category: DeclineCategory;
  subcategory: string | null;
  maxRetries: number;
  cooldownHours: number | null;
  customerAction: string | null;
  reason: string | null;
  handling: 'retry' | 'dunning' | 'none';
  mappingVersion: string;
  matchedBy: 'code' | 'pattern' | 'none';
}

/** unknown is dunned like hard_customer: the conservative default of §1/§2.6 rule 3. */
const HANDLING: Readonly<Record<DeclineCategory, DeclineClassification['handling']>> = {
  soft_retry: 'retry',
  hard_customer: 'dunning',
  terminal: 'none',
  unknown: 'dunning',
};

// Maps, not the records, for lookup: a raw code such as 'constructor' or '__proto__' must not hit Object.prototype.
const PROCESSOR_LOOKUP: ReadonlyMap<string, ReadonlyMap<string, ProcessorRow>> = new Map(
  Object.entries(PROCESSOR_TABLES).map(([psp, table]) => [psp, new Map(Object.entries(table))]),
);

interface GenericPattern {
  readonly pattern: string;
  readonly category: 'soft_retry' | 'hard_customer' | 'terminal';
  readonly subcategory: string;
}

/**
 * Precedence when a code contains several patterns: terminal, then hard_customer, then soft_retry, so that a
 * fraud signal is never retried and a card that needs customer action is never silently retried; within a
 * category the longest (most specific) pattern first; equal lengths alphabetically, so the result does not
 * depend on the order the table happens to be written in.
 */
const CATEGORY_PRECEDENCE = ['terminal', 'hard_customer', 'soft_retry'] as const;

const GENERIC_PATTERN_ORDER: readonly GenericPattern[] = CATEGORY_PRECEDENCE.flatMap((category) =>
  Object.entries(GENERIC_PATTERNS[category])
    .map(([pattern, subcategory]): GenericPattern => ({ pattern, category, subcategory }))
    .sort((a, b) => b.pattern.length - a.pattern.length || (a.pattern < b.pattern ? -1 : 1)),
);

export function classifyDecline(psp: string, rawCode: string | null | undefined): DeclineClassification {
  const code = (rawCode ?? '').trim();
  if (code === '') return unknown();

  const table = PROCESSOR_LOOKUP.get(psp.trim().toLowerCase());
  if (table) {
    // Stripe codes are snake_case lowercase; braintree codes are digits, so lowercasing is harmless there.
    // A code missing from a processor's own table is unknown, never pattern-matched (§2.6 rules 3 and 5).
    const row = table.get(code.toLowerCase());
    return row ? fromRow(row) : unknown();
  }
  return fromPattern(code.toLowerCase());
}

function fromRow(row: ProcessorRow): DeclineClassification {
  const base = { subcategory: row.subcategory, mappingVersion: DECLINE_MAPPING_VERSION, matchedBy: 'code' } as const;
  switch (row.category) {
    case 'soft_retry':
      return {
        ...base,
        category: 'soft_retry',
        maxRetries: row.maxRetries,
        cooldownHours: row.cooldownHours,
        customerAction: null,
        reason: null,
        handling: HANDLING.soft_retry,
      };
    case 'hard_customer':
      return {
        ...base,
        category: 'hard_customer',
        maxRetries: 0,
        cooldownHours: null,
        customerAction: row.customerAction,
        reason: null,
        handling: HANDLING.hard_customer,
      };
    case 'terminal':
      return {
        ...base,
        category: 'terminal',
        maxRetries: 0,
        cooldownHours: null,
        customerAction: null,
        reason: row.reason,
        handling: HANDLING.terminal,
      };
  }
}

function fromPattern(code: string): DeclineClassification {
  const match = GENERIC_PATTERN_ORDER.find((p) => code.includes(p.pattern));
  if (!match) return unknown();
  // The generic table carries neither customer actions nor reasons; we do not invent them (docs/decisions.md).
  const base = {
    category: match.category,
    subcategory: match.subcategory,
    customerAction: null,
    reason: null,
    handling: HANDLING[match.category],
    mappingVersion: DECLINE_MAPPING_VERSION,
    matchedBy: 'pattern',
  } as const;
  if (match.category !== 'soft_retry') return { ...base, maxRetries: 0, cooldownHours: null };
  const defaults = GENERIC_RETRY_DEFAULTS[match.subcategory as GenericSoftRetrySubcategory];
  return { ...base, maxRetries: defaults.maxRetries, cooldownHours: defaults.cooldownHours };
}

function unknown(): DeclineClassification {
  return {
    category: 'unknown',
    subcategory: null,
    maxRetries: 0,
    cooldownHours: null,
    customerAction: null,
    reason: null,
    handling: HANDLING.unknown,
    mappingVersion: DECLINE_MAPPING_VERSION,
    matchedBy: 'none',
  };
}
