import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seal, unseal } from '../../shared/http/sealed-response.ts';

describe('sealed idempotent responses', () => {
  it('opens only with the API key and scope that sealed it (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), fc.string(), (text, apiKey, otherKey, scope) => {
        const sealed = seal(text, apiKey, scope);
        expect(unseal(sealed, apiKey, scope)).toBe(text);
        if (otherKey !== apiKey) expect(unseal(sealed, otherKey, scope)).toBeUndefined();
        expect(unseal(sealed, apiKey, `${scope}/other`)).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a sealed body that was altered, and never shows the text', () => {
    const sealed = seal('{"secret":"svc_test_abc"}', 'svc_test_key', 'scope');
    expect(sealed).not.toContain('svc_test_abc');
    const bytes = Buffer.from(sealed, 'base64');
    bytes[bytes.length - 1]! ^= 1;
    expect(unseal(bytes.toString('base64'), 'svc_test_key', 'scope')).toBeUndefined();
    expect(unseal('not sealed at all', 'svc_test_key', 'scope')).toBeUndefined();
  });
});
