import * as z from '../zod.ts';
import { isoTimestamp } from './time-schemas.ts';

// Filters the payment and customer lists share. Each list's query schema has its own module, so a
// function builds only the one it takes: a zod schema's first construction is cold-start time.

export const processorName = () =>
  z.string().regex(/^[a-z][a-z0-9_-]{1,31}$/, { error: 'must be a processor name: lowercase letters, digits, - and _' });

export const createdRange = () => ({
  created_after: isoTimestamp.optional(),
  created_before: isoTimestamp.optional(),
});
