/**
 * The decline-code tables of spec §2.6, as data. classifyDecline (decline-classification.ts) is the only reader.
 *
 * Adding or changing a code is a one-line data change:
 *   1. add the line to the processor's record below (or a pattern to GENERIC_PATTERNS);
 *   2. bump DECLINE_MAPPING_VERSION in decline-classification.ts (same day: increment the suffix,
 *      later day: that date with suffix .1), because every payment records the version that classified it
 *      and a payment classified under the old table must stay explainable;
 *   3. add the row to the transcription in test/unit/decline-classification.test.ts.
 * Payments already recorded are never reclassified: until a code is mapped it stays unknown (§9).
 *
 * Records keyed by code rather than arrays so that a code listed twice is a compile error (TS1117)
 * instead of a silent first-match-wins.
 */

export interface SoftRetryRow {
  readonly category: 'soft_retry';
  readonly subcategory: string;
  readonly maxRetries: number;
  readonly cooldownHours: number;
}

export interface HardCustomerRow {
  readonly category: 'hard_customer';
  readonly subcategory: string;
  readonly customerAction: string;
}

export interface TerminalRow {
  readonly category: 'terminal';
  readonly subcategory: string;
  /** Processor B's terminal table has no reason column, hence nullable. */
  readonly reason: string | null;
}

export type ProcessorRow = SoftRetryRow | HardCustomerRow | TerminalRow;

const soft = (subcategory: string, maxRetries: number, cooldownHours: number): SoftRetryRow => ({
  category: 'soft_retry',
  subcategory,
  maxRetries,
  cooldownHours,
});
const hard = (subcategory: string, customerAction: string): HardCustomerRow => ({
  category: 'hard_customer',
  subcategory,
  customerAction,
});
const terminal = (subcategory: string, reason: string | null = null): TerminalRow => ({
  category: 'terminal',
  subcategory,
  reason,
});

/** Processor A (§2.6). Keys are lowercase because lookup lowercases the raw code. */
export const STRIPE_CODES: Readonly<Record<string, ProcessorRow>> = {
  // soft_retry
  insufficient_funds: soft('Balance', 4, 48),
  processing_error: soft('Issuer Temporary', 3, 24),
  try_again_later: soft('Issuer Temporary', 3, 12),
  card_velocity_exceeded: soft('Rate Limit', 2, 72),
  generic_decline: soft('Generic', 3, 48),
  do_not_honor: soft('Generic', 3, 48),
  issuer_not_available: soft('Issuer Temporary', 3, 12),
  reenter_transaction: soft('Issuer Temporary', 2, 6),
  withdrawal_count_limit_exceeded: soft('Rate Limit', 2, 72),
  service_not_allowed: soft('Generic', 2, 48),
  transaction_not_allowed: soft('Generic', 2, 48),
  not_permitted: soft('Generic', 2, 48),
  offline_pin_required: soft('Issuer Temporary', 2, 24),
  online_or_offline_pin_required: soft('Issuer Temporary', 2, 24),
  no_action_taken: soft('Generic', 2, 48),
  revocation_of_all_authorizations: soft('Generic', 1, 72),
  approve_with_id: soft('Generic', 2, 24),
  // hard_customer
  expired_card: hard('Card Expired', 'Update payment method'),
  incorrect_cvc: hard('Card Data', 'Re-enter card details'),
  incorrect_number: hard('Card Data', 'Re-enter card details'),
  incorrect_zip: hard('Card Data', 'Re-enter card details'),
  invalid_cvc: hard('Card Data', 'Re-enter card details'),
  invalid_number: hard('Card Data', 'Re-enter card details'),
  invalid_expiry_month: hard('Card Data', 'Re-enter card details'),
  invalid_expiry_year: hard('Card Data', 'Re-enter card details'),
  authentication_required: hard('SCA / 3D Secure', 'Complete authentication'),
  call_issuer: hard('Verification', 'Contact bank'),
  card_not_supported: hard('Card Type', 'Use a different card'),
  currency_not_supported: hard('Card Type', 'Use a different card'),
  do_not_try_again: hard('Issuer Block', 'Contact bank or update card'),
  new_account_information_available: hard('Card Updated', 'Update payment method'),
  restricted_card: hard('Issuer Block', 'Contact bank'),
  stop_payment_order: hard('Issuer Block', 'Contact merchant'),
  security_violation: hard('Security', 'Contact bank'),
  card_declined: hard('Generic', 'Contact bank or update card'),
  invalid_account: hard('Generic', 'Update payment method'),
  live_mode_test_card: hard('Card Data', 'Use a real card'),
  pin_try_exceeded: hard('Security', 'Contact bank'),
  testmode_decline: hard('Card Data', 'Use test-approved card'),
  // terminal
  fraudulent: terminal('Fraud', 'fraud risk'),
  merchant_blacklist: terminal('Fraud', 'permanently blocked'),
  stolen_card: terminal('Fraud', 'card deactivated'),
  lost_card: terminal('Fraud', 'card deactivated'),
  pickup_card: terminal('Fraud', 'card deactivated'),
  revocation_of_authorization: terminal('Closed Account', 'cannot charge'),
};

/** Processor B (§2.6): processor response codes, kept as strings because they arrive as strings in webhooks. */
export const BRAINTREE_CODES: Readonly<Record<string, ProcessorRow>> = {
  // soft_retry
  '2001': soft('Balance', 4, 48),
  '2002': soft('Rate Limit', 2, 72),
  '2003': soft('Rate Limit', 2, 72),
  '2038': soft('Issuer Temporary', 3, 24),
  '2046': soft('Generic', 3, 48),
  '2047': soft('Generic', 3, 48),
  '2053': soft('Generic', 1, 72),
  '2057': soft('Generic', 2, 48),
  '2059': soft('Generic', 2, 48),
  '2099': soft('Issuer Temporary', 3, 12),
  // hard_customer
  '2004': hard('Card Expired', 'Update payment method'),
  '2005': hard('Card Data', 'Re-enter card details'),
  '2006': hard('Card Data', 'Re-enter card details'),
  '2010': hard('Card Data', 'Re-enter card details'),
  '2014': hard('Card Type', 'Use a different card'),
  '2024': hard('Card Type', 'Use a different card'),
  '2044': hard('Card Data', 'Re-enter card details'),
  '2048': hard('Generic', 'Contact merchant'),
  '2051': hard('Generic', 'Add funds or use different card'),
  '2074': hard('Generic', 'Update funding source'),
  '2075': hard('Generic', 'Contact the wallet provider'),
  // terminal (the spec gives no reason column for processor B)
  '2000': terminal('Fraud'),
  '2007': terminal('Closed Account'),
  '2009': terminal('Closed Account'),
  '2015': terminal('Fraud'),
  '2041': terminal('Fraud'),
  '2043': terminal('Fraud'),
  '2060': terminal('Closed Account'),
  '2062': terminal('Closed Account'),
};

/** Processors with their own table; any other psp is classified by GENERIC_PATTERNS (§2.6 rule 5). */
export const PROCESSOR_TABLES: Readonly<Record<string, Readonly<Record<string, ProcessorRow>>>> = {
  stripe: STRIPE_CODES,
  braintree: BRAINTREE_CODES,
};

/**
 * Generic pattern mapping (§2.6): a raw code containing the pattern (case-insensitive) gets the subcategory.
 * Patterns are lowercase. Precedence between several matches lives in decline-classification.ts.
 */
export const GENERIC_PATTERNS = {
  soft_retry: {
    insufficient_funds: 'Balance',
    temporary_failure: 'Issuer Temporary',
    rate_limited: 'Rate Limit',
    try_again: 'Issuer Temporary',
    processing_error: 'Issuer Temporary',
    issuer_unavailable: 'Issuer Temporary',
  },
  hard_customer: {
    expired: 'Card Expired',
    invalid_card: 'Card Data',
    invalid_cvc: 'Card Data',
    authentication_required: 'SCA / 3D Secure',
    card_not_supported: 'Card Type',
    restricted: 'Issuer Block',
    contact_issuer: 'Verification',
  },
  terminal: {
    fraud: 'Fraud',
    stolen: 'Fraud',
    lost: 'Fraud',
    blacklisted: 'Fraud',
    account_closed: 'Closed Account',
  },
} as const;

export type GenericSoftRetrySubcategory = (typeof GENERIC_PATTERNS.soft_retry)[keyof typeof GENERIC_PATTERNS.soft_retry];

/**
 * The generic mapping gives no retry parameters, so each soft subcategory takes the modal values of the
 * processor rows with the same subcategory (reasoning in docs/decisions.md, "Generic processor retry defaults").
 * Typed by the subcategories the soft patterns use, so a new soft subcategory without defaults fails to compile.
 */
export const GENERIC_RETRY_DEFAULTS: Readonly<
  Record<GenericSoftRetrySubcategory, { readonly maxRetries: number; readonly cooldownHours: number }>
> = {
  Balance: { maxRetries: 4, cooldownHours: 48 },
  'Issuer Temporary': { maxRetries: 3, cooldownHours: 24 },
  'Rate Limit': { maxRetries: 2, cooldownHours: 72 },
};
