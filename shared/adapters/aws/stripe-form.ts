/**
 * Stripe's form encoding of request parameters (application/x-www-form-urlencoded, also used for GET
 * query strings), as the `stripe` package writes it: nested objects as `a[b]=c`, arrays with their
 * index `items[0][price]=...`, `null` as an empty value (which unsets a field at Stripe), `undefined`
 * left out. Brackets stay unencoded for readability, as the package leaves them; Stripe reads both.
 */
export type StripeParam = string | number | boolean | null | undefined | readonly StripeParam[] | { readonly [key: string]: StripeParam };

export type StripeParams = { readonly [key: string]: StripeParam };

export function encodeStripeForm(params: StripeParams): string {
  const pairs: string[] = [];
  const add = (key: string, value: StripeParam): void => {
    if (value === undefined) return;
    if (value === null || typeof value !== 'object') {
      pairs.push(`${encodePart(key)}=${encodePart(value === null ? '' : String(value))}`);
    } else if (isList(value)) {
      value.forEach((item, index) => add(`${key}[${index}]`, item));
    } else {
      for (const [name, item] of Object.entries(value)) add(`${key}[${name}]`, item);
    }
  };
  for (const [key, value] of Object.entries(params)) add(key, value);
  return pairs.join('&');
}

const isList = (value: object): value is readonly StripeParam[] => Array.isArray(value);

/** encodeURIComponent plus the characters qs also encodes (`!'()*`), with `[` and `]` left readable. */
function encodePart(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)
    .replaceAll('%5B', '[')
    .replaceAll('%5D', ']');
}
