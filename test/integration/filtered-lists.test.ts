import { beforeAll, describe, expect, it } from 'vitest';
import { lookAhead } from '../../shared/store/list-query.ts';
import { call } from '../support/api.ts';
import { itemsRead } from '../support/items-read.ts';
import { byKey, merchantWithProcessors, readAllPages, recordFailure, recordSuccess, storedPayments } from '../support/recovery-data.ts';

type Stored = Record<string, any>;

describe('payments filtered by a counted pair, read ahead by the counters', () => {
  let merchant: Awaited<ReturnType<typeof merchantWithProcessors>>;
  let payments: Stored[];

  // Three currencies, soft and hard declines, some recovered, on both processors, over a few days:
  // every pair the counters keep has matches spread among non-matches, on every shard.
  beforeAll(async () => {
    merchant = await merchantWithProcessors();
    const currencies = ['usd', 'eur', 'gbp', 'usd'];
    const codes = ['insufficient_funds', 'insufficient_funds', 'insufficient_funds', 'expired_card', 'stolen_card'];
    for (let i = 0; i < 72; i++) {
      const failure = await recordFailure(merchant.paths, { psp: i % 4 === 0 ? 'zeta' : 'acme', code: codes[i % codes.length], currency: currencies[i % 4], after: i % 12 === 0 ? 86_400 : 900 });
      if (i % 6 === 1) await recordSuccess(merchant.paths[i % 4 === 0 ? 'zeta' : 'acme'], failure.event);
    }
    payments = (await storedPayments(merchant.tenant)).sort((a, b) => byKey(a.id, b.id));
  }, 300_000);

  const pairs: [string, Record<string, string>, (p: Stored) => boolean][] = [
    ['status + currency', { status: 'pending', currency: 'eur' }, (p) => p.status === 'pending' && p.currency === 'eur'],
    ['decline code + status', { decline_code: 'expired_card', status: 'communication_pending' }, (p) => p.decline_code === 'expired_card' && p.status === 'communication_pending'],
    ['category + psp', { decline_category: 'soft_retry', psp: 'zeta' }, (p) => p.decline_category === 'soft_retry' && p.psp === 'zeta'],
    ['a pair nothing matches', { decline_code: 'stolen_card', status: 'pending' }, (p) => p.decline_code === 'stolen_card' && p.status === 'pending'],
  ];

  it('returns exactly the matching payments, in creation order, with their exact total, at any page size and in both orders', async () => {
    for (const [name, filter, matches] of pairs) {
      const expected = payments.filter(matches).map((p) => p.id);
      if (name !== 'a pair nothing matches') expect(expected.length, name).toBeGreaterThan(5);
      for (const [perPage, order] of [[4, 'asc'], [5, 'desc']] as const) {
        const { ids, total } = await readAllPages(merchant.keys.test_read, '/v1/payments', { ...filter, order }, perPage);
        expect(total, name).toBe(expected.length);
        expect(ids, `${name} ${perPage} ${order}`).toEqual(order === 'asc' ? expected : [...expected].reverse());
      }
    }
  }, 120_000);

  it('reads about per_page × the partition-to-pair ratio for a first page, not a fixed hundred entries', async () => {
    const pending = payments.filter((p) => p.status === 'pending');
    const eur = pending.filter((p) => p.currency === 'eur');
    const perPage = 2;
    let body: any;
    const read = await itemsRead(async () => {
      body = (await call('GET', '/v1/payments', { key: merchant.keys.test_read, query: { status: 'pending', currency: 'eur', per_page: String(perPage) } })).body;
    });
    expect(body.data.map((p: Stored) => p.id)).toEqual(eur.map((p) => p.id).reverse().slice(0, perPage));
    expect(body.pagination.total).toBe(eur.length);
    // The key lookup, the month counter items (4 per month: at most two months), the look-ahead and
    // at most one more read of the few still missing; reading ahead a hundred read the whole partition.
    expect(read).toBeLessThanOrEqual(1 + 8 + 2 * lookAhead(perPage, pending.length / eur.length));
    expect(read).toBeLessThan(1 + 4 + pending.length);
  }, 60_000);

  it('reads no entry for a pair the counters show nothing matches', async () => {
    let body: any;
    const read = await itemsRead(async () => {
      body = (await call('GET', '/v1/payments', { key: merchant.keys.test_read, query: { decline_code: 'stolen_card', status: 'pending' } })).body;
    });
    expect(body.data).toEqual([]);
    expect(body.pagination.total).toBe(0);
    // The key lookup and the month counter items (4 per month, at most two months).
    expect(read).toBeLessThanOrEqual(1 + 8);
  }, 60_000);
});
