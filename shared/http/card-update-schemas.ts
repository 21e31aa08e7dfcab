import * as z from '../zod.ts';

/** The card-update page's form: the test-mode card fields, or Braintree Drop-in's nonce (live). Bounded, nothing else. */
const field = (max: number) => z.string().max(max).optional();

export const submittedCardForm = z.strictObject({
  number: field(40),
  expiry: field(10),
  cvc: field(8),
  payment_method_nonce: field(200),
});

/** Stripe Checkout's return: the Checkout Session it completed. */
export const stripeReturnQuery = z.strictObject({ session_id: z.string().regex(/^cs_[A-Za-z0-9_]{1,200}$/) });
