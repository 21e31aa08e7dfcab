/**
 * The card networks' retry rules, as data beside the processors' decline tables (decline-tables.ts).
 * The spec's tables give a payment its retry budget; these judge per card, across all of a merchant's
 * payments and whoever starts the attempt, and the networks charge a fee for each attempt that breaks
 * them. network-guard.ts (domain/retries) is the only reader.
 *
 * A network's change is one row: add it with its `effectiveFrom` (and close the row it replaces with
 * `effectiveUntil`), bump NETWORK_RULES_VERSION, and add the case to test/unit/network-rules.test.ts.
 * Every decision records the version it was taken under.
 *
 * Sources (read 2026-11-26):
 * - Visa Excessive Reattempts (System Integrity fees): Category 1 codes never reattempted; Categories 2-4
 *   at most 15 reattempts per card in 30 days, fees from April 2022 (US$0.10 domestic, +US$0.05
 *   cross-border). https://www.payway.com/visa-excessive-reattempts-rule-fees ,
 *   https://www.payvision.com/scheme-updates/visa-new-fees-for-declined-transactions-reattempts/ (29 Mar 2021),
 *   https://developers.getevolved.com/enterprise/docs/visas-processing-integrity-fee-program .
 * - Visa from May 2025: 20 reattempts in 30 days, counted apart for cardholder- and merchant-initiated
 *   attempts. https://www.checkout.com/merchant-communications/changes-to-visa-system-integrity-fees
 * - Mastercard Merchant Advice Codes 01, 02, 03, 21, 24-30:
 *   https://developer.paypal.com/braintree/docs/reference/general/merchant-responses/merchant-advice-codes ,
 *   https://docs.solidgate.com/payments/card-payments/recover-revenue/merchant-advice-codes (02: after 72 h).
 * - Mastercard attempt limits (Transaction Processing Excellence, Excessive Authorization Attempts): more
 *   than 10 declines per card in a day, and 35 per card, merchant and amount in 30 days, US from
 *   1 Nov 2023, US$0.50 per attempt over them since 1 Jan 2025.
 *   https://developer.paypal.com/braintree/articles/risk-and-security/compliance/network-updates/2023/mastercard-f23 ,
 *   https://developers.tabapay.com/docs/excessive-retry-rules , https://retries.com/guides/transaction-processing-excellence .
 *   Counted here per card whatever the amount, which keeps to the per-amount rule too. The 2019 fee
 *   (US$0.10 after 20 declines in 24 h, https://support.forte.net/support/solutions/articles/11000081270)
 *   is looser.
 */
import type { CardNetwork, LedgerCounter } from '../../model/card-ledger.ts';

export const NETWORK_RULES_VERSION = '2026-11-26.2';

export type RuleEffect =
  /** No attempt on the card until it changes (a card update). */
  | { kind: 'never' }
  /** No attempt on the card before the answer's time plus `hours`. */
  | { kind: 'not_before'; hours: number }
  /** At most `max` of the counter in any rolling `windowHours`. */
  | { kind: 'limit'; counter: LedgerCounter; windowHours: number; max: number };

export interface NetworkRule {
  readonly id: string;
  readonly network: Exclude<CardNetwork, 'other' | 'unknown'>;
  /** The answers that set the rule's block (limits: none, they apply to every attempt). */
  readonly when: { readonly declineCodes: readonly string[] } | { readonly adviceCodes: readonly string[] } | 'every_attempt';
  readonly effect: RuleEffect;
  readonly description: string;
  /** ISO date (UTC) the rule applies from; `effectiveUntil` exclusive. */
  readonly effectiveFrom: string;
  readonly effectiveUntil?: string;
  /** What the network charges for an attempt that breaks the rule, in US cents (domestic): estimates of fees avoided. */
  readonly feeCents: number;
}

const VISA_FEE = 10;
const MASTERCARD_FEE = 10;
/** The Excessive Authorization Attempts fee over the attempt limits, since 1 Jan 2025 (US). */
const MASTERCARD_ATTEMPTS_FEE = 50;
const hours = (days: number): number => days * 24;

export const NETWORK_RULES: readonly NetworkRule[] = [
  {
    id: 'visa_category_1',
    network: 'visa',
    when: { declineCodes: ['04', '07', '12', '14', '15', '41', '43', '46', '57', 'R0', 'R1', 'R3'] },
    effect: { kind: 'never' },
    description: 'Visa Category 1: the issuer will never approve this card; any reattempt is excessive',
    effectiveFrom: '2021-07-01',
    feeCents: VISA_FEE,
  },
  {
    id: 'visa_reattempts_30d',
    network: 'visa',
    when: 'every_attempt',
    effect: { kind: 'limit', counter: 'merchant_reattempts', windowHours: hours(30), max: 15 },
    description: 'Visa: at most 15 reattempts per card in 30 days',
    effectiveFrom: '2021-07-01',
    effectiveUntil: '2025-05-01',
    feeCents: VISA_FEE,
  },
  {
    id: 'visa_merchant_reattempts_30d',
    network: 'visa',
    when: 'every_attempt',
    effect: { kind: 'limit', counter: 'merchant_reattempts', windowHours: hours(30), max: 20 },
    description: 'Visa: at most 20 merchant-initiated reattempts per card in 30 days',
    effectiveFrom: '2025-05-01',
    feeCents: VISA_FEE,
  },
  {
    id: 'visa_customer_reattempts_30d',
    network: 'visa',
    when: 'every_attempt',
    effect: { kind: 'limit', counter: 'customer_reattempts', windowHours: hours(30), max: 20 },
    description: 'Visa: at most 20 customer-initiated reattempts per card in 30 days',
    effectiveFrom: '2025-05-01',
    feeCents: VISA_FEE,
  },
  {
    id: 'mastercard_mac_01',
    network: 'mastercard',
    when: { adviceCodes: ['01'] },
    effect: { kind: 'never' },
    description: 'Mastercard MAC 01: new account information available; update the card, do not retry it',
    effectiveFrom: '2021-07-01',
    feeCents: MASTERCARD_FEE,
  },
  {
    id: 'mastercard_mac_02',
    network: 'mastercard',
    when: { adviceCodes: ['02'] },
    effect: { kind: 'not_before', hours: 72 },
    description: 'Mastercard MAC 02: try again later, not before 72 hours',
    effectiveFrom: '2021-07-01',
    feeCents: MASTERCARD_FEE,
  },
  {
    id: 'mastercard_mac_03',
    network: 'mastercard',
    when: { adviceCodes: ['03'] },
    effect: { kind: 'never' },
    description: 'Mastercard MAC 03: do not try again',
    effectiveFrom: '2021-07-01',
    feeCents: MASTERCARD_FEE,
  },
  {
    id: 'mastercard_mac_21',
    network: 'mastercard',
    when: { adviceCodes: ['21'] },
    effect: { kind: 'never' },
    description: 'Mastercard MAC 21: payment cancellation, stop recurring',
    effectiveFrom: '2021-07-01',
    feeCents: MASTERCARD_FEE,
  },
  ...(
    [
      ['24', 1],
      ['25', 24],
      ['26', hours(2)],
      ['27', hours(4)],
      ['28', hours(6)],
      ['29', hours(8)],
      ['30', hours(10)],
    ] as const
  ).map(
    ([code, wait]): NetworkRule => ({
      id: `mastercard_mac_${code}`,
      network: 'mastercard',
      when: { adviceCodes: [code] },
      effect: { kind: 'not_before', hours: wait },
      description: `Mastercard MAC ${code}: retry after ${wait < 48 ? `${wait} hour${wait === 1 ? '' : 's'}` : `${wait / 24} days`}`,
      effectiveFrom: '2021-07-01',
      feeCents: MASTERCARD_FEE,
    }),
  ),
  {
    id: 'mastercard_attempts_24h',
    network: 'mastercard',
    when: 'every_attempt',
    effect: { kind: 'limit', counter: 'attempts', windowHours: 24, max: 10 },
    description: 'Mastercard: at most 10 attempts per card in 24 hours',
    effectiveFrom: '2023-11-01',
    feeCents: MASTERCARD_ATTEMPTS_FEE,
  },
  {
    id: 'mastercard_attempts_30d',
    network: 'mastercard',
    when: 'every_attempt',
    effect: { kind: 'limit', counter: 'attempts', windowHours: hours(30), max: 35 },
    description: 'Mastercard: at most 35 attempts per card in 30 days',
    effectiveFrom: '2023-11-01',
    feeCents: MASTERCARD_ATTEMPTS_FEE,
  },
];

const inForce = (rule: NetworkRule, at: Date): boolean => {
  const day = at.toISOString().slice(0, 10);
  return rule.effectiveFrom <= day && (rule.effectiveUntil === undefined || day < rule.effectiveUntil);
};

/** The rules that judge a card of `network` at `at`: a card of unknown brand by every network's, conservatively. */
export function rulesInForce(network: CardNetwork, at: Date): NetworkRule[] {
  if (network === 'other') return [];
  return NETWORK_RULES.filter((rule) => (network === 'unknown' || rule.network === network) && inForce(rule, at));
}

export const ruleById = (id: string): NetworkRule | undefined => NETWORK_RULES.find((rule) => rule.id === id);
