import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  classifyDecline,
  DECLINE_MAPPING_VERSION,
  type DeclineClassification,
} from '../../shared/domain/declines/decline-classification.ts';
// Imported only to prove the implementation holds no row beyond the transcription below; never for expected values.
import { BRAINTREE_CODES, GENERIC_PATTERNS, STRIPE_CODES } from '../../shared/domain/declines/decline-tables.ts';
import {
  A_SOFT,
  A_HARD,
  A_TERMINAL,
  B_SOFT,
  B_HARD,
  B_TERMINAL,
  GENERIC,
  GENERIC_DEFAULTS,
  type GenericRow,
} from '../support/spec-decline-tables.ts';

// ---------------------------------------------------------------------------------------------------------
// Independent transcription of spec §2.6. Edit these only from the spec text, never from decline-tables.ts.
// ---------------------------------------------------------------------------------------------------------


const GENERIC_PSPS = ['adyen', 'checkout', 'paypal', 'gocardless'] as const;

// ---------------------------------------------------------------------------------------------------------

function expectedSoft(subcategory: string, maxRetries: number, cooldownHours: number, matchedBy: 'code' | 'pattern') {
  return {
    category: 'soft_retry',
    subcategory,
    maxRetries,
    cooldownHours,
    customerAction: null,
    reason: null,
    handling: 'retry',
    mappingVersion: DECLINE_MAPPING_VERSION,
    matchedBy,
  } satisfies DeclineClassification;
}

function expectedHard(subcategory: string, customerAction: string | null, matchedBy: 'code' | 'pattern') {
  return {
    category: 'hard_customer',
    subcategory,
    maxRetries: 0,
    cooldownHours: null,
    customerAction,
    reason: null,
    handling: 'dunning',
    mappingVersion: DECLINE_MAPPING_VERSION,
    matchedBy,
  } satisfies DeclineClassification;
}

function expectedTerminal(subcategory: string, reason: string | null, matchedBy: 'code' | 'pattern') {
  return {
    category: 'terminal',
    subcategory,
    maxRetries: 0,
    cooldownHours: null,
    customerAction: null,
    reason,
    handling: 'none',
    mappingVersion: DECLINE_MAPPING_VERSION,
    matchedBy,
  } satisfies DeclineClassification;
}

const UNKNOWN = {
  category: 'unknown',
  subcategory: null,
  maxRetries: 0,
  cooldownHours: null,
  customerAction: null,
  reason: null,
  handling: 'dunning',
  mappingVersion: DECLINE_MAPPING_VERSION,
  matchedBy: 'none',
} satisfies DeclineClassification;

function expectedGeneric([, category, subcategory]: GenericRow): DeclineClassification {
  if (category === 'terminal') return expectedTerminal(subcategory, null, 'pattern');
  if (category === 'hard_customer') return expectedHard(subcategory, null, 'pattern');
  const defaults = GENERIC_DEFAULTS[subcategory];
  if (!defaults) throw new Error(`no transcribed default for ${subcategory}`);
  return expectedSoft(subcategory, defaults[0], defaults[1], 'pattern');
}

const A_CODES = [...A_SOFT, ...A_HARD, ...A_TERMINAL].map(([code]) => code);
const B_CODES = [...B_SOFT, ...B_HARD, ...B_TERMINAL].map(([code]) => code);

describe('processor A (stripe)', () => {
  it.each(A_SOFT)('%s → soft_retry %s, %i retries every %i h', (code, subcategory, maxRetries, cooldownHours) => {
    expect(classifyDecline('stripe', code)).toEqual(expectedSoft(subcategory, maxRetries, cooldownHours, 'code'));
  });

  it.each(A_HARD)('%s → hard_customer %s, "%s"', (code, subcategory, customerAction) => {
    expect(classifyDecline('stripe', code)).toEqual(expectedHard(subcategory, customerAction, 'code'));
  });

  it.each(A_TERMINAL)('%s → terminal %s, reason "%s"', (code, subcategory, reason) => {
    expect(classifyDecline('stripe', code)).toEqual(expectedTerminal(subcategory, reason, 'code'));
  });

  it.each(A_CODES)('%s matches upper-case and padded with whitespace', (code) => {
    const exact = classifyDecline('stripe', code);
    expect(classifyDecline('stripe', code.toUpperCase())).toEqual(exact);
    expect(classifyDecline('stripe', `  ${code}\n`)).toEqual(exact);
  });

  it('holds exactly the spec rows, no more', () => {
    expect(Object.keys(STRIPE_CODES).sort()).toEqual([...A_CODES].sort());
    expect(A_CODES).toHaveLength(17 + 22 + 6);
  });

  it.each([
    'not_a_real_code',
    'insufficient_funds_2024', // a longer code is not a processor code: lookup is exact, not containment
    'card_expired_2024', // would match the generic `expired` pattern, but stripe has its own table
    'fraud',
    'expired_card_x',
    '2001', // a braintree code means nothing to stripe
    'insufficient funds',
  ])('unmapped code %j → unknown (no fallback to generic patterns)', (code) => {
    expect(classifyDecline('stripe', code)).toEqual(UNKNOWN);
  });
});

describe('processor B (braintree)', () => {
  it.each(B_SOFT)('%s → soft_retry %s, %i retries every %i h', (code, subcategory, maxRetries, cooldownHours) => {
    expect(classifyDecline('braintree', code)).toEqual(expectedSoft(subcategory, maxRetries, cooldownHours, 'code'));
  });

  it.each(B_HARD)('%s → hard_customer %s, "%s"', (code, subcategory, customerAction) => {
    expect(classifyDecline('braintree', code)).toEqual(expectedHard(subcategory, customerAction, 'code'));
  });

  it.each(B_TERMINAL)('%s → terminal %s, no reason', (code, subcategory) => {
    expect(classifyDecline('braintree', code)).toEqual(expectedTerminal(subcategory, null, 'code'));
  });

  it.each(B_CODES)('%s matches padded with whitespace', (code) => {
    expect(classifyDecline('braintree', ` ${code} `)).toEqual(classifyDecline('braintree', code));
  });

  it('holds exactly the spec rows, no more', () => {
    expect(Object.keys(BRAINTREE_CODES).sort()).toEqual([...B_CODES].sort());
    expect(B_CODES).toHaveLength(10 + 11 + 8);
  });

  it.each([
    '9999',
    '1000', // approved range, never a decline
    '02001', // exact match after trimming only: no numeric normalisation
    '2001.0',
    '20 01',
    'insufficient_funds', // a stripe code / generic pattern means nothing to braintree
    'fraud',
    'card_expired_2024',
  ])('unmapped code %j → unknown (no fallback to generic patterns)', (code) => {
    expect(classifyDecline('braintree', code)).toEqual(UNKNOWN);
  });
});

describe('generic pattern mapping (any other processor)', () => {
  it('covers exactly the spec patterns', () => {
    const implemented = Object.values(GENERIC_PATTERNS).flatMap((byPattern) => Object.keys(byPattern));
    expect(implemented.sort()).toEqual(GENERIC.map(([pattern]) => pattern).sort());
  });

  describe.each(GENERIC_PSPS)('psp %s', (psp) => {
    it.each(GENERIC)('%s → %s %s', (...row) => {
      expect(classifyDecline(psp, row[0])).toEqual(expectedGeneric(row));
    });

    it.each(GENERIC)('embedded %s (e.g. card_%s_2024) → %s %s', (...row) => {
      expect(classifyDecline(psp, `card_${row[0]}_2024`)).toEqual(expectedGeneric(row));
    });

    it.each(GENERIC)('upper-case %s → %s %s', (...row) => {
      expect(classifyDecline(psp, `DECLINE_${row[0].toUpperCase()}`)).toEqual(expectedGeneric(row));
    });
  });

  it('card_expired_2024 → hard_customer Card Expired (the spec example)', () => {
    expect(classifyDecline('adyen', 'card_expired_2024')).toEqual(expectedHard('Card Expired', null, 'pattern'));
  });

  it('soft subcategories take the documented defaults', () => {
    expect(classifyDecline('adyen', 'insufficient_funds')).toMatchObject({ maxRetries: 4, cooldownHours: 48 });
    expect(classifyDecline('adyen', 'issuer_unavailable')).toMatchObject({ maxRetries: 3, cooldownHours: 24 });
    expect(classifyDecline('adyen', 'rate_limited')).toMatchObject({ maxRetries: 2, cooldownHours: 72 });
  });

  it.each(['weird_code', 'do_not_honor', 'card_declined', '2001', 'insufficient-funds', 'x'])(
    'no pattern in %j → unknown',
    (code) => {
      expect(classifyDecline('adyen', code)).toEqual(UNKNOWN);
    },
  );

  it.each([
    // terminal beats everything: fraud is never retried
    ['fraud_insufficient_funds', expectedTerminal('Fraud', null, 'pattern')],
    ['insufficient_funds_stolen', expectedTerminal('Fraud', null, 'pattern')],
    ['stolen_card_expired', expectedTerminal('Fraud', null, 'pattern')],
    ['lost_try_again', expectedTerminal('Fraud', null, 'pattern')],
    // hard_customer beats soft_retry: a customer-action decline is not retried silently
    ['expired_try_again', expectedHard('Card Expired', null, 'pattern')],
    ['restricted_rate_limited', expectedHard('Issuer Block', null, 'pattern')],
    ['processing_error_authentication_required', expectedHard('SCA / 3D Secure', null, 'pattern')],
    // within a category the longest pattern wins
    ['account_closed_fraud', expectedTerminal('Closed Account', null, 'pattern')],
    ['invalid_card_not_supported', expectedHard('Card Type', null, 'pattern')],
    ['contact_issuer_expired', expectedHard('Verification', null, 'pattern')],
    ['try_again_temporary_failure', expectedSoft('Issuer Temporary', 3, 24, 'pattern')],
    ['rate_limited_processing_error', expectedSoft('Issuer Temporary', 3, 24, 'pattern')],
    ['try_again_rate_limited', expectedSoft('Rate Limit', 2, 72, 'pattern')],
    // equal length within a category: alphabetical (insufficient_funds < issuer_unavailable)
    ['issuer_unavailable_insufficient_funds', expectedSoft('Balance', 4, 48, 'pattern')],
  ] as const)('precedence: %s', (code, expected) => {
    expect(classifyDecline('adyen', code)).toEqual(expected);
  });
});

describe('missing codes and psp spelling', () => {
  it.each(['stripe', 'braintree', ...GENERIC_PSPS])('%s: null, undefined, empty and blank codes → unknown', (psp) => {
    for (const code of [null, undefined, '', '   ', '\t\n']) {
      expect(classifyDecline(psp, code)).toEqual(UNKNOWN);
    }
  });

  it('the psp name is matched case- and whitespace-insensitively', () => {
    expect(classifyDecline('Stripe', 'expired_card')).toEqual(classifyDecline('stripe', 'expired_card'));
    expect(classifyDecline(' BRAINTREE ', '2001')).toEqual(classifyDecline('braintree', '2001'));
  });

  it('codes are not looked up on Object.prototype', () => {
    for (const psp of ['stripe', 'braintree']) {
      for (const code of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
        expect(classifyDecline(psp, code)).toEqual(UNKNOWN);
      }
    }
  });
});

describe('invariants over every table row', () => {
  const every: [string, string][] = [
    ...A_CODES.map((code): [string, string] => ['stripe', code]),
    ...B_CODES.map((code): [string, string] => ['braintree', code]),
    ...GENERIC.map(([pattern]): [string, string] => ['adyen', pattern]),
  ];

  it('terminal rows have maxRetries 0, no cooldown, handling none', () => {
    const terminal = every.map(([psp, code]) => classifyDecline(psp, code)).filter((c) => c.category === 'terminal');
    expect(terminal).toHaveLength(A_TERMINAL.length + B_TERMINAL.length + 5);
    for (const c of terminal) expect(c).toMatchObject({ maxRetries: 0, cooldownHours: null, handling: 'none' });
  });

  it('the mapping version is recorded on every result', () => {
    expect(DECLINE_MAPPING_VERSION).toMatch(/^\d{4}-\d{2}-\d{2}\.\d+$/);
    for (const [psp, code] of [...every, ['stripe', 'nope'], ['adyen', null]] as const) {
      expect(classifyDecline(psp, code).mappingVersion).toBe(DECLINE_MAPPING_VERSION);
    }
  });

  it('each result is a fresh object, so a caller mutating it cannot corrupt the tables', () => {
    const first = classifyDecline('stripe', 'insufficient_funds');
    first.maxRetries = 99;
    expect(classifyDecline('stripe', 'insufficient_funds').maxRetries).toBe(4);
  });
});

describe('properties', () => {
  const KNOWN_PSP = fc.constantFrom('stripe', 'braintree', ...GENERIC_PSPS);
  const ANY_PSP = fc.oneof(KNOWN_PSP, fc.string());
  const GENERIC_PSP = fc
    .oneof(fc.constantFrom(...GENERIC_PSPS), fc.string())
    .filter((psp) => !['stripe', 'braintree'].includes(psp.trim().toLowerCase()));
  const ALL_TOKENS = [...A_CODES, ...B_CODES, ...GENERIC.map(([pattern]) => pattern)];
  const AFFIX = fc.string({ maxLength: 8 });
  const CODE_WITH_TOKEN = fc
    .tuple(AFFIX, fc.constantFrom(...ALL_TOKENS), AFFIX)
    .map(([before, token, after]) => `${before}${token}${after}`);
  const ANY_CODE = fc.oneof(
    fc.string(),
    fc.constantFrom(...ALL_TOKENS),
    CODE_WITH_TOKEN,
    fc.constant(null),
    fc.constant(undefined),
  );

  /** Randomly upper-cases letters, so mixed case (not only all-upper) is exercised. */
  const withRandomCase = (code: string, mask: readonly boolean[]) =>
    [...code].map((ch, i) => (mask[i % Math.max(mask.length, 1)] ? ch.toUpperCase() : ch.toLowerCase())).join('');

  it('never throws and every result is internally consistent', () => {
    fc.assert(
      fc.property(ANY_PSP, ANY_CODE, (psp, code) => {
        const c = classifyDecline(psp, code);
        expect(c.mappingVersion).toBe(DECLINE_MAPPING_VERSION);
        expect(c.category === 'unknown').toBe(c.matchedBy === 'none');
        expect(c.subcategory === null).toBe(c.category === 'unknown');
        switch (c.category) {
          case 'terminal':
            expect(c).toMatchObject({ maxRetries: 0, cooldownHours: null, handling: 'none', customerAction: null });
            break;
          case 'soft_retry':
            expect(c.maxRetries).toBeGreaterThanOrEqual(1);
            expect(c.cooldownHours).toBeGreaterThan(0);
            expect(c).toMatchObject({ handling: 'retry', customerAction: null, reason: null });
            break;
          case 'hard_customer':
          case 'unknown':
            expect(c).toMatchObject({ maxRetries: 0, cooldownHours: null, handling: 'dunning', reason: null });
            break;
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('generic psps classify case-insensitively', () => {
    fc.assert(
      fc.property(GENERIC_PSP, fc.oneof(fc.string(), CODE_WITH_TOKEN), fc.array(fc.boolean()), (psp, code, mask) => {
        const expected = classifyDecline(psp, code.toLowerCase());
        expect(classifyDecline(psp, code.toUpperCase())).toEqual(expected);
        expect(classifyDecline(psp, withRandomCase(code, mask))).toEqual(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it('stripe codes match in any case and with surrounding whitespace', () => {
    fc.assert(
      fc.property(fc.constantFrom(...A_CODES), fc.array(fc.boolean()), fc.constantFrom('', ' ', '\t', '\n '), (code, mask, pad) => {
        expect(classifyDecline('stripe', `${pad}${withRandomCase(code, mask)}${pad}`)).toEqual(
          classifyDecline('stripe', code),
        );
      }),
    );
  });

  it('for a generic psp, a code containing a terminal pattern is always terminal (never retried)', () => {
    const terminalPatterns = GENERIC.filter(([, category]) => category === 'terminal').map(([pattern]) => pattern);
    // Surround with other patterns too, so the terminal one has to win over hard_customer and soft_retry matches.
    const surrounding = fc.oneof(AFFIX, fc.constantFrom(...GENERIC.map(([pattern]) => pattern)));
    fc.assert(
      fc.property(GENERIC_PSP, surrounding, fc.constantFrom(...terminalPatterns), surrounding, (psp, before, pattern, after) => {
        const c = classifyDecline(psp, `${before}${pattern}${after}`);
        expect(c.category).toBe('terminal');
        expect(c.maxRetries).toBe(0);
      }),
    );
  });

  it('for a generic psp, a code containing any pattern is never unknown', () => {
    fc.assert(
      fc.property(GENERIC_PSP, AFFIX, fc.constantFrom(...GENERIC.map(([pattern]) => pattern)), AFFIX, (psp, before, pattern, after) => {
        expect(classifyDecline(psp, `${before}${pattern}${after}`).matchedBy).toBe('pattern');
      }),
    );
  });
});
