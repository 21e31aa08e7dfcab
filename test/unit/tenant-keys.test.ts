import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Tenant } from '../../shared/model/tenant.ts';
import { TENANT_SHARDS, tenantKey, tenantPartitions, tenantPk } from '../../shared/store/keys.ts';
import { newId } from '../../shared/ids.ts';

const tenant: Tenant = { merchantId: 'mer_01jd4x2k9m8v7c6b5n4q3r2s1t', environment: 'live' };
const base = tenantPk(tenant);
const shards = Array.from({ length: TENANT_SHARDS }, (_, shard) => `${base}#${shard}`);

/** Sort keys as the store modules write them: per-failure items, counters, enrollments and configuration. */
const sortKey = fc.oneof(
  fc.constantFrom('PAYMENT#', 'PAYREF#stripe#', 'CUSTOMER#', 'CUSTREF#acme#', 'EVENT#', 'WHDELIVERY#we_1#', 'CAMPAIGN#', 'APIKEY#', 'TEMPLATE#', 'USAGE#').chain((prefix) =>
    fc.string({ minLength: 1, maxLength: 30 }).map((rest) => `${prefix}${rest}`),
  ),
  fc.tuple(fc.constantFrom('STATS#PAYMENTS#D#2026-11-26#', 'RANK#PAYMENTS#amount#C#0429\u0001'), fc.integer({ min: 0, max: 3 })).map(([prefix, shard]) => `${prefix}${shard}`),
  fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), fc.string({ maxLength: 20 })).map(([customer, rest]) => `ENROLLMENT#${customer.replaceAll('#', '')}#${rest}`),
);

describe("a tenant's keys", () => {
  it('put every item where a query of any prefix of its sort key looks', () => {
    fc.assert(
      fc.property(sortKey, fc.nat(), (sk, cut) => {
        const { pk } = tenantKey(tenant, sk);
        expect(tenantPartitions(tenant, sk.slice(0, cut % (sk.length + 1)))).toContain(pk);
        expect([base, ...shards]).toContain(pk);
      }),
    );
  });

  it('keep configuration on the tenant key, listed by one query', () => {
    for (const sk of ['APIKEY#key_1', 'CAMPAIGN#cmp_1', 'CAMPAIGN_COUNTS', 'TEMPLATE#tpl_1', 'WEBHOOK#we_1', 'PROCESSOR#stripe', 'SETTINGS#branding', 'CANCELSIGNING', 'USAGE#2026-11']) {
      expect(tenantKey(tenant, sk).pk).toBe(base);
    }
    expect(tenantPartitions(tenant, 'CAMPAIGN#')).toEqual([base]);
    expect(tenantPartitions(tenant, 'PAYMENT#')).toEqual(shards);
    expect(tenantPartitions(tenant, '')).toEqual([base, ...shards]);
  });

  it("spread a counter bucket's shards over four keys, and a customer's enrollments on one", () => {
    const counterKeys = [0, 1, 2, 3].map((shard) => tenantKey(tenant, `STATS#PAYMENTS#M#2026-11#${shard}`).pk);
    expect(new Set(counterKeys).size).toBe(TENANT_SHARDS);
    const enrollments = ['pay_1#cmp_1', 'pay_2#cmp_1', 'pay_2#cmp_2'].map((rest) => tenantKey(tenant, `ENROLLMENT#cus_7#${rest}`).pk);
    expect(new Set(enrollments)).toEqual(new Set(tenantPartitions(tenant, 'ENROLLMENT#cus_7#')));
    expect(tenantPartitions(tenant, 'ENROLLMENT#cus_7#')).toHaveLength(1);
  });

  it('spread ids made in one second evenly: no shard takes more than a third of 4,000 payments', () => {
    const at = new Date('2026-11-26T10:00:00Z');
    const counts = new Map<string, number>();
    for (let i = 0; i < 4000; i++) {
      const { pk } = tenantKey(tenant, `PAYMENT#${newId('pay', at)}`);
      counts.set(pk, (counts.get(pk) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual(shards);
    expect(Math.max(...counts.values())).toBeLessThan(4000 / 3);
  });
});
