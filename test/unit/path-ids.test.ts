import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../shared/model/errors.ts';
import { parseInput } from '../../shared/http/parse.ts';
import { ID_RESOURCES, idParam, PATH_ID_MAX_LENGTH, type IdPrefix } from '../../shared/http/schemas.ts';
import { newId } from '../../shared/ids.ts';

const PREFIXES = Object.keys(ID_RESOURCES) as IdPrefix[];

function verdict(prefix: IdPrefix, id: string): { code: string; message: string; param?: string } | 'looked up' {
  try {
    parseInput(idParam(prefix), { id }, 'path');
    return 'looked up';
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return { code: error.code, message: error.message, ...(error.param === undefined ? {} : { param: error.param }) };
  }
}

const storableText = fc.string({ unit: 'grapheme', maxLength: PATH_ID_MAX_LENGTH }).filter((text) => text.length <= PATH_ID_MAX_LENGTH && !/[\u0000-\u001f\u007f]/.test(text));

describe('path ids', () => {
  it('passes every id we make on to its lookup', () => {
    for (const prefix of PREFIXES) expect(verdict(prefix, newId(prefix))).toBe('looked up');
  });

  it('answers any other text within the bound as the 404 of an id that names nothing, with the same message (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PREFIXES), storableText, (prefix, id) => {
        fc.pre(!new RegExp(`^${prefix}_[0-9a-z]{26}$`).test(id));
        expect(verdict(prefix, id)).toEqual({ code: 'resource_not_found', message: `No such ${ID_RESOURCES[prefix]}: '${id}'` });
      }),
      { numRuns: 500 },
    );
    expect(verdict('pay', 'pay_doesnotexist')).toEqual({ code: 'resource_not_found', message: "No such payment: 'pay_doesnotexist'" });
    expect(verdict('cmp', 'cmp_x')).toEqual({ code: 'resource_not_found', message: "No such campaign: 'cmp_x'" });
    expect(verdict('pay', newId('cus'))).toMatchObject({ code: 'resource_not_found' });
    expect(verdict('pay', newId('pay').toUpperCase())).toMatchObject({ code: 'resource_not_found' });
    expect(verdict('pay', 'x'.repeat(PATH_ID_MAX_LENGTH))).toMatchObject({ code: 'resource_not_found' });
  });

  it('refuses as malformed (400) only text no id could be: over the bound, or with control characters (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PREFIXES), fc.string({ minLength: PATH_ID_MAX_LENGTH + 1, maxLength: PATH_ID_MAX_LENGTH * 4 }), (prefix, id) => {
        expect(verdict(prefix, id)).toEqual({ code: 'invalid_request', param: 'id', message: `Invalid id: must be at most ${PATH_ID_MAX_LENGTH} characters` });
      }),
      { numRuns: 100 },
    );
    for (const control of ['\u0000', '\n', '\t', '\u001f', '\u007f']) {
      expect(verdict('pay', `pay_${control}`)).toEqual({ code: 'invalid_request', param: 'id', message: 'Invalid id: must not contain control characters' });
    }
  });
});
