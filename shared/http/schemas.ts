import * as z from '../zod.ts';

/** What each of our id prefixes names, as the 404 for an unknown id says it (`No such payment: 'pay_…'`). */
export const ID_RESOURCES = {
  pay: 'payment',
  cus: 'customer',
  cmp: 'campaign',
  cfl: 'cancel flow',
  key: 'API key',
  we: 'webhook endpoint',
  whd: 'delivery',
  con: 'webhook endpoint',
} as const;

export type IdPrefix = keyof typeof ID_RESOURCES;

/** The longest path id or token that is a lookup at all, as Stripe bounds its object ids. */
export const PATH_ID_MAX_LENGTH = 255;

/** The issue param by which shared/http/parse.ts knows an id that names nothing (a 404, not a 400). */
export const UNKNOWN_ID = 'unknownId';

/** Path text that could be a lookup at all: anything else (over the bound, control characters) is a malformed request. */
export const pathText = () =>
  z
    .string()
    .max(PATH_ID_MAX_LENGTH, { error: `must be at most ${PATH_ID_MAX_LENGTH} characters`, abort: true })
    .regex(/^[^\u0000-\u001f\u007f]*$/, { error: 'must not contain control characters', abort: true });

/**
 * A path parameter naming one of our objects by its prefixed id (`pay_…`). An id of any other shape
 * names nothing that could exist, so it gets the same 404 as an id we do not have (as at Stripe),
 * decided here without a read; the action's store read answers 404 for the well-formed rest.
 */
export const pathId = (prefix: IdPrefix) => {
  const shape = new RegExp(`^${prefix}_[0-9a-z]{26}$`);
  return pathText()
    .refine((id) => shape.test(id), { params: { [UNKNOWN_ID]: ID_RESOURCES[prefix] } })
    .meta({ description: `The ${ID_RESOURCES[prefix]}'s id (${prefix}_…); one that names none is 404 resource_not_found` });
};

/** The `{id}` path parameter of a route about one object. */
export const idParam = (prefix: IdPrefix) => z.strictObject({ id: pathId(prefix) });
