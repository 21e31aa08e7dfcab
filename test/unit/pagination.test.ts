import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { slicePage } from '../../shared/model/pagination.ts';
import { pageQuery } from '../../shared/http/query-schemas.ts';

const query = z.strictObject(pageQuery);

describe('pagination', () => {
  it('reading every page returns every item exactly once, in order (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { maxLength: 300 }), fc.integer({ min: 1, max: 100 }), (items, perPage) => {
        const pages = Math.max(1, Math.ceil(items.length / perPage));
        const read = Array.from({ length: pages }, (_, i) => slicePage(items, { page: i + 1, per_page: perPage })).flat();
        expect(read).toEqual(items);
      }),
    );
  });

  it('parses page and per_page within bounds and refuses everything else (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (page, perPage) => {
        const result = query.safeParse({ page, per_page: perPage });
        const valid = (value: string, max: number) => /^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= max;
        expect(result.success).toBe(valid(page, 10_000) && valid(perPage, 100));
      }),
    );
    expect(query.parse({})).toEqual({ page: 1, per_page: 20 });
  });
});
