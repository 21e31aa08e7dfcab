import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wellFormedText } from '../../shared/model/well-formed-text.ts';

describe('processor text made well-formed', () => {
  it('drops NUL and replaces half a surrogate pair, in every string of the event, keys included', () => {
    expect(wellFormedText({ customer: { name: 'A\u0000B', email: 'x\udc00y' }, tags: ['\ud800', 'ok 🐈'], amount: 5, paid: null })).toEqual({
      customer: { name: 'AB', email: 'x\ufffdy' },
      tags: ['\ufffd', 'ok 🐈'],
      amount: 5,
      paid: null,
    });
  });

  it('leaves well-formed text as it is (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'grapheme' }).filter((value) => !JSON.stringify(value).includes('\\u0000')), (value) => {
        expect(wellFormedText(value)).toEqual(value);
      }),
      { numRuns: 300 },
    );
  });
});
