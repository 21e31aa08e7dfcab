import type * as z from 'zod';
import { invalidRequest, notFound, validationFailed, type ServiceError } from '../model/errors.ts';
import { isFitText } from '../model/well-formed-text.ts';
import { UNKNOWN_ID } from './schemas.ts';

/** Where an input came from decides its error: bad path or query → 400, a bad body field → 422 (§7). */
export type InputSource = 'path' | 'query' | 'body';

function paramName(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const segment of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[segment];
  }
  return value;
}

function toServiceError(issue: z.core.$ZodIssue, input: unknown, source: InputSource): ServiceError {
  if (issue.code === 'unrecognized_keys') {
    const param = paramName([...issue.path, issue.keys[0]!]);
    return invalidRequest(`Received unknown parameter: ${param}`, param);
  }
  const unknownResource = issue.code === 'custom' ? issue.params?.[UNKNOWN_ID] : undefined;
  if (typeof unknownResource === 'string') return notFound(unknownResource, String(valueAt(input, issue.path)));
  const param = paramName(issue.path);
  if (param === '') {
    // The root is wrong in kind (an array, a string) or fails a rule across its fields, which says what is wrong.
    return invalidRequest(source === 'body' && issue.code === 'invalid_type' ? 'The request body must be a JSON object' : issue.message);
  }
  if (valueAt(input, issue.path) === undefined) {
    // A missing required field is a malformed request (§7 invalid_request), not a field that failed validation.
    return invalidRequest(`Missing required param: ${param}`, param);
  }
  const message = `Invalid ${param}: ${issue.message}`;
  return source === 'body' ? validationFailed(message, param) : invalidRequest(message, param);
}

export function parseInput<T>(schema: z.ZodType<T>, input: unknown, source: InputSource): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw toServiceError(result.error.issues[0]!, input, source);
}

/** Parses a raw request body as JSON; an empty body reads as `{}` so optional-only bodies can be omitted. */
export function parseJsonBody(body: string | null, isBase64Encoded: boolean, contentType: string | undefined): unknown {
  if (body === null || body === '') return {};
  if (contentType !== undefined && !/^application\/([\w.+-]+\+)?json\b/i.test(contentType.trim())) {
    throw invalidRequest(`Unsupported Content-Type '${contentType}': send the body as application/json`);
  }
  const text = isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidRequest('The request body is not valid JSON');
  }
  const unfit = unfitText(parsed);
  if (unfit) throw validationFailed(`Invalid ${unfit}: text must be valid Unicode without NUL characters`, unfit);
  return parsed;
}

/**
 * The dotted path of a string (or key) holding a NUL or half a surrogate pair: JSON lets `\u0000`
 * and `\ud800` through, and they would reach emails, webhooks and the table broken or truncated.
 * Walked with a stack of its own, so any depth JSON.parse accepts is checked without recursion.
 */
export function unfitText(body: unknown): string | undefined {
  type Visit = { value: unknown; key: string | number | undefined; parent: Visit | undefined };
  const pathOf = (visit: Visit): string => {
    const names: (string | number)[] = [];
    for (let at: Visit | undefined = visit; at?.key !== undefined; at = at.parent) names.unshift(at.key);
    return names.join('.') || '(body)';
  };
  const pending: Visit[] = [{ value: body, key: undefined, parent: undefined }];
  for (let visit = pending.pop(); visit; visit = pending.pop()) {
    const { value } = visit;
    if (typeof value === 'string') {
      if (!isFitText(value)) return pathOf(visit);
    } else if (value !== null && typeof value === 'object') {
      const children = Object.entries(value).map(([key, item]): Visit => ({ value: item, key: Array.isArray(value) ? Number(key) : key, parent: visit }));
      const badKey = children.find((child) => typeof child.key === 'string' && !isFitText(child.key));
      if (badKey) return pathOf(badKey);
      // Pushed last to first, so fields are checked in document order and the first offending one is named.
      for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]!);
    }
  }
  return undefined;
}
