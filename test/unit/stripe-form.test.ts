import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeStripeForm } from '../../shared/adapters/aws/stripe-form.ts';

describe('encodeStripeForm', () => {
  it('writes nested objects with brackets and arrays with their index', () => {
    expect(encodeStripeForm({ items: [{ id: 'si_1', price: 'price_basic' }], metadata: { source: 'cancel_flow' }, proration_behavior: 'none' })).toBe(
      'items[0][id]=si_1&items[0][price]=price_basic&metadata[source]=cancel_flow&proration_behavior=none',
    );
  });

  it('writes numbers and booleans as text, null as an empty value (unsetting the field), and leaves undefined out', () => {
    expect(encodeStripeForm({ percent_off: 12.5, off_session: true, description: null, coupon: undefined, list: [undefined, 'x'] })).toBe(
      'percent_off=12.5&off_session=true&description=&list[1]=x',
    );
  });

  it('encodes what is not safe in a form, including the characters qs encodes, and keeps brackets readable', () => {
    expect(encodeStripeForm({ 'a b': "Fish & chips = £5 (50%) isn't *cheap*!", 'metadata[k]': '[x]' })).toBe(
      "a%20b=Fish%20%26%20chips%20%3D%20%C2%A35%20%2850%25%29%20isn%27t%20%2Acheap%2A%21&metadata[k]=[x]",
    );
  });

  it('encodes nothing for no parameters', () => {
    expect(encodeStripeForm({})).toBe('');
  });

  it('decodes back to the flattened parameters (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), fc.string())), (params) => {
        const flattened = Object.entries(params).flatMap(([key, inner]) => Object.entries(inner).map(([name, value]) => [`${key}[${name}]`, value]));
        expect([...new URLSearchParams(encodeStripeForm(params))]).toEqual(flattened);
      }),
    );
  });
});
