/**
 * Independent transcription of spec §2.6, shared by the unit and end-to-end classification tests.
 * Edit these only from the spec text, never from shared/domain/declines/decline-tables.ts.
 */
export type SoftRow = readonly [code: string, subcategory: string, maxRetries: number, cooldownHours: number];
export type HardRow = readonly [code: string, subcategory: string, customerAction: string];
export type TerminalRowA = readonly [code: string, subcategory: string, reason: string];
export type TerminalRowB = readonly [code: string, subcategory: string];

export const A_SOFT: readonly SoftRow[] = [
  ['insufficient_funds', 'Balance', 4, 48],
  ['processing_error', 'Issuer Temporary', 3, 24],
  ['try_again_later', 'Issuer Temporary', 3, 12],
  ['card_velocity_exceeded', 'Rate Limit', 2, 72],
  ['generic_decline', 'Generic', 3, 48],
  ['do_not_honor', 'Generic', 3, 48],
  ['issuer_not_available', 'Issuer Temporary', 3, 12],
  ['reenter_transaction', 'Issuer Temporary', 2, 6],
  ['withdrawal_count_limit_exceeded', 'Rate Limit', 2, 72],
  ['service_not_allowed', 'Generic', 2, 48],
  ['transaction_not_allowed', 'Generic', 2, 48],
  ['not_permitted', 'Generic', 2, 48],
  ['offline_pin_required', 'Issuer Temporary', 2, 24],
  ['online_or_offline_pin_required', 'Issuer Temporary', 2, 24],
  ['no_action_taken', 'Generic', 2, 48],
  ['revocation_of_all_authorizations', 'Generic', 1, 72],
  ['approve_with_id', 'Generic', 2, 24],
];

export const A_HARD: readonly HardRow[] = [
  ['expired_card', 'Card Expired', 'Update payment method'],
  ['incorrect_cvc', 'Card Data', 'Re-enter card details'],
  ['incorrect_number', 'Card Data', 'Re-enter card details'],
  ['incorrect_zip', 'Card Data', 'Re-enter card details'],
  ['invalid_cvc', 'Card Data', 'Re-enter card details'],
  ['invalid_number', 'Card Data', 'Re-enter card details'],
  ['invalid_expiry_month', 'Card Data', 'Re-enter card details'],
  ['invalid_expiry_year', 'Card Data', 'Re-enter card details'],
  ['authentication_required', 'SCA / 3D Secure', 'Complete authentication'],
  ['call_issuer', 'Verification', 'Contact bank'],
  ['card_not_supported', 'Card Type', 'Use a different card'],
  ['currency_not_supported', 'Card Type', 'Use a different card'],
  ['do_not_try_again', 'Issuer Block', 'Contact bank or update card'],
  ['new_account_information_available', 'Card Updated', 'Update payment method'],
  ['restricted_card', 'Issuer Block', 'Contact bank'],
  ['stop_payment_order', 'Issuer Block', 'Contact merchant'],
  ['security_violation', 'Security', 'Contact bank'],
  ['card_declined', 'Generic', 'Contact bank or update card'],
  ['invalid_account', 'Generic', 'Update payment method'],
  ['live_mode_test_card', 'Card Data', 'Use a real card'],
  ['pin_try_exceeded', 'Security', 'Contact bank'],
  ['testmode_decline', 'Card Data', 'Use test-approved card'],
];

export const A_TERMINAL: readonly TerminalRowA[] = [
  ['fraudulent', 'Fraud', 'fraud risk'],
  ['merchant_blacklist', 'Fraud', 'permanently blocked'],
  ['stolen_card', 'Fraud', 'card deactivated'],
  ['lost_card', 'Fraud', 'card deactivated'],
  ['pickup_card', 'Fraud', 'card deactivated'],
  ['revocation_of_authorization', 'Closed Account', 'cannot charge'],
];

export const B_SOFT: readonly SoftRow[] = [
  ['2001', 'Balance', 4, 48],
  ['2002', 'Rate Limit', 2, 72],
  ['2003', 'Rate Limit', 2, 72],
  ['2038', 'Issuer Temporary', 3, 24],
  ['2046', 'Generic', 3, 48],
  ['2047', 'Generic', 3, 48],
  ['2053', 'Generic', 1, 72],
  ['2057', 'Generic', 2, 48],
  ['2059', 'Generic', 2, 48],
  ['2099', 'Issuer Temporary', 3, 12],
];

export const B_HARD: readonly HardRow[] = [
  ['2004', 'Card Expired', 'Update payment method'],
  ['2005', 'Card Data', 'Re-enter card details'],
  ['2006', 'Card Data', 'Re-enter card details'],
  ['2010', 'Card Data', 'Re-enter card details'],
  ['2014', 'Card Type', 'Use a different card'],
  ['2024', 'Card Type', 'Use a different card'],
  ['2044', 'Card Data', 'Re-enter card details'],
  ['2048', 'Generic', 'Contact merchant'],
  ['2051', 'Generic', 'Add funds or use different card'],
  ['2074', 'Generic', 'Update funding source'],
  ['2075', 'Generic', 'Contact the wallet provider'],
];

export const B_TERMINAL: readonly TerminalRowB[] = [
  ['2000', 'Fraud'],
  ['2007', 'Closed Account'],
  ['2009', 'Closed Account'],
  ['2015', 'Fraud'],
  ['2041', 'Fraud'],
  ['2043', 'Fraud'],
  ['2060', 'Closed Account'],
  ['2062', 'Closed Account'],
];

export type GenericRow = readonly [pattern: string, category: 'soft_retry' | 'hard_customer' | 'terminal', subcategory: string];

export const GENERIC: readonly GenericRow[] = [
  ['insufficient_funds', 'soft_retry', 'Balance'],
  ['temporary_failure', 'soft_retry', 'Issuer Temporary'],
  ['rate_limited', 'soft_retry', 'Rate Limit'],
  ['try_again', 'soft_retry', 'Issuer Temporary'],
  ['processing_error', 'soft_retry', 'Issuer Temporary'],
  ['issuer_unavailable', 'soft_retry', 'Issuer Temporary'],
  ['expired', 'hard_customer', 'Card Expired'],
  ['invalid_card', 'hard_customer', 'Card Data'],
  ['invalid_cvc', 'hard_customer', 'Card Data'],
  ['authentication_required', 'hard_customer', 'SCA / 3D Secure'],
  ['card_not_supported', 'hard_customer', 'Card Type'],
  ['restricted', 'hard_customer', 'Issuer Block'],
  ['contact_issuer', 'hard_customer', 'Verification'],
  ['fraud', 'terminal', 'Fraud'],
  ['stolen', 'terminal', 'Fraud'],
  ['lost', 'terminal', 'Fraud'],
  ['blacklisted', 'terminal', 'Fraud'],
  ['account_closed', 'terminal', 'Closed Account'],
];

/** Not in the spec: the defaults argued in docs/decisions.md "Generic processor retry defaults". */
export const GENERIC_DEFAULTS: Readonly<Record<string, readonly [maxRetries: number, cooldownHours: number]>> = {
  Balance: [4, 48],
  'Issuer Temporary': [3, 24],
  'Rate Limit': [2, 72],
};
