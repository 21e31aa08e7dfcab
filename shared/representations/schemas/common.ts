import * as z from '../../zod.ts';

/**
 * Building blocks of the response schemas. Response schemas describe what the service sends: the
 * representation functions are typed from them (z.output), and the API description (shared/openapi/)
 * documents them. Handlers never import them as values, so they add nothing to a function's bundle.
 */
export const timestamp = z.iso.datetime();

export const prefixedId = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_[0-9a-z]{26}$`));

export const count = z.int().nonnegative();

/** Money, in the smallest currency unit. */
export const amount = z.int().nonnegative();

/** ISO 4217, lowercase in responses (§2.1). */
export const currency = z.string().regex(/^[a-z]{3}$/);

/** A share of a count, rounded to 4 decimals. */
export const rate = z.number().min(0).max(1);

/** §2.1 single-resource response. */
export const single = <T extends z.ZodType>(resource: T) => z.strictObject({ data: resource });

/** §2.1 and §8: a page of a list and where it stands. */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.strictObject({
    data: z.array(item),
    pagination: z.strictObject({ total: count, page: z.int().min(1), per_page: z.int().min(1), total_pages: count }),
  });

/** A deletion's answer, as Stripe shapes it. */
export const deletedObject = (prefix: string) => z.strictObject({ id: prefixedId(prefix), deleted: z.literal(true) });

export type DeletedObject = z.output<ReturnType<typeof deletedObject>>;

/** True when A and B are assignable both ways: a compile-time check that a value's type matches its schema. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export type Assert<T extends true> = T;
