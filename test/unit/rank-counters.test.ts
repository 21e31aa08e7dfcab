import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Tenant } from '../../shared/model/tenant.ts';
import { amountKey, compareKeys } from '../../shared/store/list-query.ts';
import { amountOrder, childAt, rankItems, rankWrites } from '../../shared/store/rank-counters.ts';

const order = amountOrder('PAYMENTS#amount', 'pay');
const tenant: Tenant = { merchantId: 'mer_01jd4x2k9m8v7c6b5n4q3r2s1t', environment: 'test' };
const amount = fc.oneof(fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }));

describe('amount classes', () => {
  it('hold their amounts inside their key bounds and order as the amounts do', () => {
    fc.assert(
      fc.property(amount, amount, (a, b) => {
        const key = `${amountKey(a)}#pay_01JD4X2K9M8V7C6B5N4Q3R2S1T`;
        const { lower, upper } = order.classBounds(order.classOf(amountKey(a)));
        expect(compareKeys(lower, key)).toBeLessThanOrEqual(0);
        expect(compareKeys(key, upper)).toBeLessThanOrEqual(0);
        if (a < b) expect(compareKeys(order.classOf(amountKey(a)), order.classOf(amountKey(b)))).toBeLessThanOrEqual(0);
        // Labels inside one class keep the amounts' order, and give the key back.
        if (order.classOf(amountKey(a)) === order.classOf(amountKey(b)) && a < b) expect(compareKeys(order.label(amountKey(a)), order.label(amountKey(b)))).toBeLessThan(0);
        expect(order.valueOf(order.label(amountKey(a)))).toBe(amountKey(a));
      }),
    );
  });
});

describe('the walk', () => {
  it('finds the child holding an offset from either end, with what precedes it there', () => {
    const counts = new Map([['0429', 3], ['015', 2], ['0510', 4]]);
    expect(childAt(counts, 0, true)).toEqual({ label: '015', count: 2, remaining: 0 });
    expect(childAt(counts, 4, true)).toEqual({ label: '0429', count: 3, remaining: 2 });
    expect(childAt(counts, 5, true)).toEqual({ label: '0510', count: 4, remaining: 0 });
    expect(childAt(counts, 4, false)).toEqual({ label: '0429', count: 3, remaining: 0 });
    expect(childAt(counts, 9, true)).toBeUndefined();
  });
});

describe('rank writes', () => {
  const entry = (value: number, id = 'pay_01JD4X2K9M8V7C6B5N4Q3R2S1T') => ({ value: amountKey(value), id, created_at: '2026-11-26T10:00:00.000Z' });

  it('count a new entry once at each level, as the bulk items do', () => {
    const writes = rankWrites(tenant, [{ order, before: null, after: entry(2900) }]);
    const items = rankItems(tenant, order, [entry(2900)]);
    expect(writes.map((write) => write.Update!.Key!.sk)).toEqual(items.map((item) => item.sk));
    expect(items.map(({ pk: _pk, sk: _sk, entity: _entity, ...labels }) => labels)).toEqual([{ '=0429': 1 }, { '=2900': 1 }, { '=20261126': 1 }]);
  });

  it('move an entry within a class with one update per counter item and nothing for an unchanged one', () => {
    expect(rankWrites(tenant, [{ order, before: entry(2900), after: entry(2900) }])).toEqual([]);
    const moved = rankWrites(tenant, [{ order, before: entry(2900), after: entry(2950) }]);
    // The root keeps its count (same class): the class node moves one label to another, each value node changes.
    expect(moved).toHaveLength(3);
    expect(moved[0]!.Update!.ExpressionAttributeNames).toEqual({ '#r0': '=2900', '#r1': '=2950' });
    expect(moved[0]!.Update!.ExpressionAttributeValues).toMatchObject({ ':r0': -1, ':r1': 1 });
  });
});
