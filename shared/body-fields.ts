import * as z from './zod.ts';

/**
 * Text and whole-number fields of request bodies, with the messages every body gives for them (the
 * campaign, cancel-flow and cancel-session bodies share them). The checks go on in one `.check()`:
 * the same checks, in the same order, as `.trim().min().max()`, in one zod instance instead of one
 * per method.
 */
const atMost = (max: number) => z.maxLength(max, { error: `must be at most ${max} characters` });

/** Trimmed text of 1 to `max` characters. */
export const requiredText = (max: number) =>
  z.string({ error: 'must be a string' }).check(z.trim(), z.minLength(1, { error: 'must not be empty' }), atMost(max));

/** Trimmed text of at most `max` characters, possibly empty. */
export const text = (max: number) => z.string({ error: 'must be a string' }).check(z.trim(), atMost(max));

/** A whole number from `min` to `max`; `what` names it in the one message every failure gets. */
export function wholeNumber(min: number, max: number, what = 'an integer') {
  const error = `must be ${what} from ${min} to ${max}`;
  return z.number({ error }).check(z.int({ error }), z.gte(min, { error }), z.lte(max, { error }));
}

/**
 * A PUT body: the fields `create` takes, each optional, and at least one of them sent (an empty update
 * is a 400 naming them; the API description says so with `minProperties`).
 */
export function updateBody<Shape extends z.core.$ZodLooseShape>(fields: Shape) {
  const names = Object.keys(fields);
  const listed = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : names.join('');
  return z
    .strictObject(fields)
    .partial()
    .refine((body) => Object.keys(body).length > 0, { error: `Provide at least one field to update: ${listed}.` })
    .meta({ minProperties: 1 });
}
