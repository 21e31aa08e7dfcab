/**
 * Processor events are not refused for their text (that would lose the failure they report): a NUL
 * is dropped and half a surrogate pair becomes U+FFFD, the way a UTF-8 decoder reads broken bytes, so
 * names and emails reach messages, webhooks and the table whole. The API refuses such text instead
 * (docs/decisions.md, Errors).
 */
const NUL = /\u0000/g;
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The same pattern without the global flag, whose `test` keeps no position between calls. */
const HAS_UNPAIRED_SURROGATE = new RegExp(UNPAIRED_SURROGATE.source);

/** Whether a string is well-formed Unicode without NUL: what the API accepts (shared/http/parse.ts). */
export function isFitText(text: string): boolean {
  return !text.includes('\u0000') && !HAS_UNPAIRED_SURROGATE.test(text);
}

export function wellFormedText<T>(value: T): T {
  if (typeof value === 'string') return value.replace(NUL, '').replace(UNPAIRED_SURROGATE, '\ufffd') as T;
  if (Array.isArray(value)) return value.map(wellFormedText) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [wellFormedText(key), wellFormedText(item)])) as T;
  }
  return value;
}
