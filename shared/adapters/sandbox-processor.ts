import type { PaymentProcessor, RetryOutcome, RetryRequest } from '../ports/payment-processor.ts';

/**
 * The test-mode processor: outcomes are chosen by the customer's card (last four digits), like
 * Stripe's test cards, so merchants can script their integration tests. docs/testing.md lists them.
 */
export const SANDBOX_CARDS: Readonly<Record<string, RetryOutcome>> = {
  '4242': { outcome: 'succeeded' },
  '9995': { outcome: 'declined', declineCode: 'insufficient_funds' },
  '0119': { outcome: 'declined', declineCode: 'processing_error' },
  '0069': { outcome: 'declined', declineCode: 'expired_card' },
  '0127': { outcome: 'declined', declineCode: 'incorrect_cvc' },
  '9979': { outcome: 'declined', declineCode: 'stolen_card' },
  '0019': { outcome: 'declined', declineCode: 'fraudulent' },
  // Soft at the processor, but the card network's answer forbids retrying (Visa Category 1; Mastercard advice codes).
  '0041': { outcome: 'declined', declineCode: 'do_not_honor', network: { declineCode: '41', adviceCode: null } },
  '0302': { outcome: 'declined', declineCode: 'insufficient_funds', network: { declineCode: '51', adviceCode: '02' } },
  '0303': { outcome: 'declined', declineCode: 'do_not_honor', network: { declineCode: '05', adviceCode: '03' } },
  '0000': { outcome: 'no_answer', reason: 'sandbox: the processor did not answer' },
  // Not card outcomes at a real processor, but what it says of the charge around the card (docs/testing.md).
  '0401': { outcome: 'refused', awaits: 'merchant', reason: "sandbox: the processor refused the merchant's credentials" },
  '0402': { outcome: 'refused', awaits: 'customer', reason: 'sandbox: no payment method to charge: the customer must add one' },
  '0410': { outcome: 'closed', reason: 'sandbox: the invoice was voided: there is nothing to pay' },
};

/**
 * Braintree reports declines by number: a Braintree payment's sandbox decline gives the code of its
 * table's row for the same decline, so it is classified as at Braintree (docs/testing.md).
 */
const BRAINTREE_CODES: Readonly<Record<string, string>> = {
  insufficient_funds: '2001',
  processing_error: '2038',
  expired_card: '2004',
  incorrect_cvc: '2010',
  stolen_card: '2043',
  fraudulent: '2015',
  do_not_honor: '2046',
};

function inProcessorTerms(outcome: RetryOutcome, psp: string): RetryOutcome {
  if (outcome.outcome !== 'declined' || psp !== 'braintree' || outcome.declineCode === null) return outcome;
  return { ...outcome, declineCode: BRAINTREE_CODES[outcome.declineCode] ?? outcome.declineCode };
}

/** Any other card: the retry declines with the original code until the last allowed attempt, which succeeds. */
function defaultOutcome(request: RetryRequest): RetryOutcome {
  const { payment, attempt } = request;
  if (attempt >= Math.max(1, payment.max_retries)) return { outcome: 'succeeded' };
  return { outcome: 'declined', declineCode: payment.decline_code };
}

export const sandboxProcessor: PaymentProcessor = {
  async retry(request) {
    const card = request.cardLastFour === null ? undefined : SANDBOX_CARDS[request.cardLastFour];
    return card ? inProcessorTerms(card, request.payment.psp) : defaultOutcome(request);
  },
};
