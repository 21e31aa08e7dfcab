import { describe, expect, it } from 'vitest';
import { sandboxProcessor } from '../../shared/adapters/sandbox-processor.ts';
import { classifyDecline } from '../../shared/domain/declines/decline-classification.ts';
import type { Payment } from '../../shared/model/payment.ts';
import type { RetryRequest } from '../../shared/ports/payment-processor.ts';

function request(psp: string, cardLastFour: string): RetryRequest {
  const payment = { id: 'pay_1', psp, decline_code: 'insufficient_funds', max_retries: 4 } as Payment;
  return { tenant: { merchantId: 'mer_1', environment: 'test' }, credentials: async () => undefined, payment, attempt: 1, idempotencyKey: 'k', cardLastFour };
}

/** docs/testing.md: what a retry on each sandbox card comes to, whichever processor the payment is from. */
const DOCUMENTED: Record<string, { category: string; subcategory?: string }> = {
  '9995': { category: 'soft_retry', subcategory: 'Balance' },
  '0119': { category: 'soft_retry', subcategory: 'Issuer Temporary' },
  '0069': { category: 'hard_customer', subcategory: 'Card Expired' },
  '0127': { category: 'hard_customer' },
  '9979': { category: 'terminal', subcategory: 'Fraud' },
  '0019': { category: 'terminal', subcategory: 'Fraud' },
  '0041': { category: 'soft_retry', subcategory: 'Generic' },
  '0302': { category: 'soft_retry', subcategory: 'Balance' },
  '0303': { category: 'soft_retry', subcategory: 'Generic' },
};

describe('sandbox processor', () => {
  it('declines each test card the same way at Stripe and at Braintree, in the processor\'s own codes', async () => {
    for (const [card, expected] of Object.entries(DOCUMENTED)) {
      for (const psp of ['stripe', 'braintree']) {
        const outcome = await sandboxProcessor.retry(request(psp, card));
        expect(outcome.outcome, `${card} at ${psp}`).toBe('declined');
        const code = outcome.outcome === 'declined' ? outcome.declineCode : null;
        if (psp === 'braintree') expect(code, `${card} at braintree`).toMatch(/^\d{4}$/);
        expect(classifyDecline(psp, code), `${card} at ${psp} (${code})`).toMatchObject(expected);
      }
    }
  });

  it('passes the card network\'s answer on with the network-code cards', async () => {
    for (const psp of ['stripe', 'braintree']) {
      expect(await sandboxProcessor.retry(request(psp, '0041'))).toMatchObject({ network: { declineCode: '41', adviceCode: null } });
      expect(await sandboxProcessor.retry(request(psp, '0302'))).toMatchObject({ network: { declineCode: '51', adviceCode: '02' } });
      expect(await sandboxProcessor.retry(request(psp, '0303'))).toMatchObject({ network: { adviceCode: '03' } });
    }
  });

  it('answers the other cards the same at every processor', async () => {
    for (const psp of ['stripe', 'braintree', 'acme']) {
      expect(await sandboxProcessor.retry(request(psp, '4242'))).toEqual({ outcome: 'succeeded' });
      expect(await sandboxProcessor.retry(request(psp, '0410'))).toMatchObject({ outcome: 'closed' });
      expect(await sandboxProcessor.retry(request(psp, '0000'))).toMatchObject({ outcome: 'no_answer' });
    }
  });
});
