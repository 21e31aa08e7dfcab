import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anonymizePayment, scrub } from '../../shared/domain/customers/customer-erasure.ts';
import { recoverySummary } from '../../shared/domain/customers/customer-queries.ts';
import { createdWindow } from '../../shared/model/listing.ts';
import type { Payment } from '../../shared/model/payment.ts';
import { idTimePart, newId } from '../../shared/ids.ts';
import { countedAs, withPairs } from '../../shared/store/list-counters.ts';

describe('creation windows', () => {
  it('makes both bounds exclusive at millisecond precision', () => {
    expect(createdWindow('2026-03-01T00:00:00Z', '2026-03-02T00:00:00.000Z')).toEqual({
      from: Date.parse('2026-03-01T00:00:00.001Z'),
      to: Date.parse('2026-03-02T00:00:00Z'),
    });
    expect(createdWindow(undefined, undefined)).toEqual({});
  });

  it('compares finer fractions exactly: before .0005 still admits .000, after .0005 does not', () => {
    expect(createdWindow(undefined, '2026-03-01T00:00:00.0005Z').to).toBe(Date.parse('2026-03-01T00:00:00.001Z'));
    expect(createdWindow('2026-03-01T00:00:00.0005Z', undefined).from).toBe(Date.parse('2026-03-01T00:00:00.001Z'));
    expect(createdWindow(undefined, '2026-03-01T00:00:00.0000Z').to).toBe(Date.parse('2026-03-01T00:00:00Z'));
  });

  it('refuses an empty window, naming created_after', () => {
    expect(() => createdWindow('2026-03-01T00:00:00Z', '2026-03-01T00:00:00Z')).toThrow(expect.objectContaining({ code: 'invalid_request', param: 'created_after' }));
    expect(() => createdWindow('2026-03-01T00:00:00.001Z', '2026-03-01T00:00:00.002Z')).toThrow();
    expect(createdWindow('2026-03-01T00:00:00.001Z', '2026-03-01T00:00:00.003Z')).toEqual({ from: Date.parse('2026-03-01T00:00:00.002Z'), to: Date.parse('2026-03-01T00:00:00.003Z') });
  });

  it('id time prefixes sort exactly as the times they encode (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 48 - 1 }), fc.integer({ min: 0, max: 2 ** 48 - 1 }), (a, b) => {
        expect(idTimePart(a) < idTimePart(b)).toBe(a < b);
      }),
    );
    const at = new Date('2026-05-01T12:00:00.123Z');
    expect(newId('pay', at).slice(4, 14)).toBe(idTimePart(at.getTime()));
  });
});

const payment = (overrides: Partial<Payment>): Payment =>
  ({
    id: newId('pay'),
    customer_id: 'cus_1',
    subscription_id: 'sub_1',
    amount: 1000,
    currency: 'usd',
    status: 'pending',
    decline_code: 'insufficient_funds',
    psp: 'braintree',
    psp_payment_id: 'txn_1',
    psp_subscription_id: 'bt_sub_9',
    psp_references: ['txn_1', 'sub:bt_sub_9:2026-12-01'],
    retries: [],
    version: 3,
    ...overrides,
  }) as Payment;

describe('erasure', () => {
  it('removes personal fields and values at any depth and leaves the rest', () => {
    const personal = ['cus_1', 'ada@example.com', 'Ada Lovelace', 'bt_cus_7'];
    const data = {
      id: 'cus_1',
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      status: 'active',
      total_payments: 3,
      nested: { note: 'mail ada@example.com later', list: ['keep', 'bt_cus_7'], phone: '+4912345' },
      campaign: 'winback',
    };
    expect(scrub(data, personal)).toEqual({
      id: null,
      email: null,
      name: null,
      status: 'active',
      total_payments: 3,
      nested: { note: null, list: ['keep', null], phone: null },
      campaign: 'winback',
    });
    // Short values only go as whole values, so a two-letter name does not blank every word containing it.
    expect(scrub({ a: 'Al', b: 'Always' }, ['Al'])).toEqual({ a: null, b: 'Always' });
  });

  it('keeps what reporting needs of a payment and drops what names the person', () => {
    const now = new Date('2026-12-10T00:00:00Z');
    const { payment: kept, droppedReferences, ended } = anonymizePayment(payment({}), ['cus_1', 'bt_cus_7'], now);
    expect(kept).toMatchObject({
      customer_id: null,
      subscription_id: null,
      psp_subscription_id: null,
      psp_payment_id: 'txn_1',
      psp_references: ['txn_1'],
      amount: 1000,
      // Recovery ends with the customer: the open payment is kept as terminal.
      status: 'terminal',
      next_retry_at: null,
      decline_code: 'insufficient_funds',
      version: 4,
      updated_at: now.toISOString(),
    });
    expect(ended).toBe(true);
    expect(droppedReferences).toEqual(['sub:bt_sub_9:2026-12-01']);
    const settled = anonymizePayment(payment({ status: 'recovered' }), ['cus_1'], now);
    expect(settled).toMatchObject({ ended: false, payment: { status: 'recovered' } });
    const named = anonymizePayment(payment({ psp_payment_id: 'charge-for-bt_cus_7', psp_references: ['charge-for-bt_cus_7'] }), ['bt_cus_7'], now);
    expect(named.payment.psp_payment_id).toMatch(/^erased_[0-9a-f]{32}$/);
    expect(named.droppedReferences).toEqual(['charge-for-bt_cus_7']);
  });
});

describe('recovery summary', () => {
  it('counts from the payments, with amounts in the latest payment currency only', () => {
    const at = (day: number) => new Date(Date.UTC(2026, 10, day));
    const payments = [
      payment({ id: newId('pay', at(1)), status: 'recovered', amount: 500, currency: 'eur' }),
      payment({ id: newId('pay', at(2)), status: 'recovered', amount: 700, currency: 'usd' }),
      payment({ id: newId('pay', at(3)), status: 'terminal', amount: 900, currency: 'usd' }),
      payment({ id: newId('pay', at(4)), status: 'communication_pending', currency: 'usd' }),
      payment({ id: newId('pay', at(5)), status: 'retrying', currency: 'usd' }),
      payment({ id: newId('pay', at(6)), status: 'pending', currency: 'usd' }),
    ];
    expect(recoverySummary(payments)).toEqual({
      total_failures: 6,
      total_recovered: 2,
      total_terminal: 1,
      total_pending: 3,
      recovery_rate: 0.3333,
      total_recovered_amount: 700,
      currency: 'usd',
    });
    expect(recoverySummary([])).toEqual({
      total_failures: 0,
      total_recovered: 0,
      total_terminal: 0,
      total_pending: 0,
      recovery_rate: 0,
      total_recovered_amount: 0,
      currency: null,
    });
  });
});

describe('counter dimensions', () => {
  it('counts low-cardinality dimensions in pairs too, a decline code with the status, and names the counter for a set of filters', () => {
    expect(withPairs('PAYMENTS', ['all', 'status:pending', 'currency:eur', 'code:expired_card'])).toEqual([
      'all',
      'status:pending',
      'currency:eur',
      'code:expired_card',
      'currency:eur&status:pending',
      'code:expired_card&status:pending',
    ]);
    expect(countedAs('PAYMENTS', [])).toBe('all');
    expect(countedAs('PAYMENTS', ['code:expired_card'])).toBe('code:expired_card');
    expect(countedAs('PAYMENTS', ['status:pending', 'currency:eur'])).toBe('currency:eur&status:pending');
    expect(countedAs('PAYMENTS', ['status:pending', 'code:expired_card'])).toBe('code:expired_card&status:pending');
    expect(countedAs('PAYMENTS', ['currency:eur', 'code:expired_card'])).toBeUndefined();
    expect(countedAs('PAYMENTS', ['status:pending', 'currency:eur', 'psp:acme'])).toBeUndefined();
    expect(countedAs('CUSTOMERS', ['failing:yes', 'psp:acme'])).toBe('failing:yes&psp:acme');
  });
});
