import * as z from '../zod.ts';

/** A path parameter holding one of our prefixed ids (`pay_…`): built by each function for its own route. */
export const idParam = (prefix: string) =>
  z.strictObject({ id: z.string().regex(new RegExp(`^${prefix}_[0-9a-z]{26}$`), { error: `must be a ${prefix}_ id` }) });
