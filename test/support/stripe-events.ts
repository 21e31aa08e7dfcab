import { nowSeconds } from './webhooks.ts';

let counter = 0;
const next = () => `${Date.now().toString(36)}${(counter += 1)}`;

/** The three events Stripe sends for one failed subscription charge, sharing pi_, ch_ and in_ ids. */
export function stripeChargeFailure(options: {
  declineCode: string;
  customer?: string;
  amount?: number;
  currency?: string;
  id?: string;
  last4?: string;
  expiry?: { month: number; year: number };
  email?: string;
  created?: number;
}) {
  const id = options.id ?? next();
  const ids = { pi: `pi_${id}`, ch: `ch_${id}`, inv: `in_${id}`, sub: `sub_s${id}`, cus: options.customer ?? `cus_s${id}` };
  const amount = options.amount ?? 4900;
  const currency = options.currency ?? 'usd';
  const created = options.created ?? nowSeconds();
  const card = { brand: 'visa', last4: options.last4 ?? '0341', exp_month: options.expiry?.month ?? 3, exp_year: options.expiry?.year ?? 2028 };
  const email = options.email ?? 'jenny@example.com';
  const paymentIntent = {
    id: 'evt_pi_' + id,
    object: 'event',
    type: 'payment_intent.payment_failed',
    created,
    data: {
      object: {
        id: ids.pi,
        object: 'payment_intent',
        amount,
        currency,
        customer: ids.cus,
        latest_charge: ids.ch,
        last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: options.declineCode, charge: ids.ch },
        status: 'requires_payment_method',
      },
    },
  };
  const charge = {
    id: 'evt_ch_' + id,
    object: 'event',
    type: 'charge.failed',
    created,
    data: {
      object: {
        id: ids.ch,
        object: 'charge',
        amount,
        currency,
        customer: ids.cus,
        payment_intent: ids.pi,
        invoice: ids.inv,
        status: 'failed',
        failure_code: 'card_declined',
        outcome: { type: 'issuer_declined', reason: options.declineCode },
        billing_details: { email, name: 'Jenny Rosen', address: { country: 'US' } },
        payment_method_details: { type: 'card', card },
      },
    },
  };
  const invoice = {
    id: 'evt_in_' + id,
    object: 'event',
    type: 'invoice.payment_failed',
    created,
    data: {
      object: {
        id: ids.inv,
        object: 'invoice',
        customer: ids.cus,
        customer_email: email,
        customer_name: 'Jenny Rosen',
        amount_due: amount,
        currency,
        payment_intent: ids.pi,
        charge: ids.ch,
        subscription: ids.sub,
        status: 'open',
        lines: { data: [{ price: { id: 'price_pro' }, plan: { id: 'pro' }, amount, currency, period: { end: created + 30 * 86400 } }] },
      },
    },
  };
  const paid = {
    id: 'evt_paid_' + id,
    object: 'event',
    type: 'invoice.paid',
    created,
    data: { object: { ...invoice.data.object, status: 'paid', amount_paid: amount } },
  };
  const canceled = {
    id: 'evt_del_' + id,
    object: 'event',
    type: 'customer.subscription.deleted',
    created,
    data: { object: { id: ids.sub, object: 'subscription', customer: ids.cus, currency, status: 'canceled', current_period_end: created, items: { data: [{ plan: { id: 'pro' }, price: { id: 'price_pro', unit_amount: amount } }] } } },
  };
  return { ids, paymentIntent, charge, invoice, paid, canceled };
}
