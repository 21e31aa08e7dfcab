import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../shared/model/errors.ts';
import { parseJsonBody } from '../../shared/http/parse.ts';

const parse = (text: string) => parseJsonBody(text, false, 'application/json');

function refusal(text: string): { code: string; param: string | undefined } {
  try {
    parse(text);
  } catch (error) {
    if (error instanceof ServiceError) return { code: error.code, param: error.param };
    throw error;
  }
  throw new Error(`accepted: ${text}`);
}

describe('JSON request bodies', () => {
  it('refuses a NUL or half a surrogate pair anywhere, naming where (422)', () => {
    expect(refusal('{"name":"a\\u0000b"}')).toEqual({ code: 'validation_error', param: 'name' });
    expect(refusal('{"steps":[{"subject":"ok"},{"subject":"\\ud800"}]}')).toEqual({ code: 'validation_error', param: 'steps.1.subject' });
    expect(refusal('{"a":{"\\udc00":1}}')).toEqual({ code: 'validation_error', param: 'a.\udc00' });
    expect(refusal('"\\u0000"')).toEqual({ code: 'validation_error', param: '(body)' });
    // The first offending field in document order is named.
    expect(refusal('{"name":"\\u0000","description":"\\u0000","a":{"b":"\\u0000"}}')).toEqual({ code: 'validation_error', param: 'name' });
  });

  it('checks any depth JSON.parse takes, without running out of stack', () => {
    const deep = `{"name":${'['.repeat(20_000)}"a\\u0000"${']'.repeat(20_000)}}`;
    expect(refusal(deep).code).toBe('validation_error');
    expect(() => parse(`{"name":${'['.repeat(20_000)}${']'.repeat(20_000)}}`)).not.toThrow();
  });

  it('takes any well-formed Unicode text as it is (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'grapheme' }).filter((value) => !JSON.stringify(value).includes('\\u0000')), (value) => {
        expect(parse(JSON.stringify(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 300 },
    );
    expect(parse('{"name":"Zoë 🐈 日本"}')).toEqual({ name: 'Zoë 🐈 日本' });
  });
});
