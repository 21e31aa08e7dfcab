import type * as z from 'zod';
import type { Surface } from '../routes.ts';

/**
 * The schemas an endpoint validates its request with, kept on the handler it builds so the API
 * description (shared/openapi/) reads exactly what runs and cannot drift from it. Only references to
 * schemas the handler already holds: nothing here adds to a function's bundle.
 */
export interface RequestContract {
  surface: Surface;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** When the body's schema depends on a path parameter, the action picks one of these itself. */
  bodyVariants?: readonly z.ZodType[];
  /** The body's media type; JSON unless said. */
  contentType?: string;
  /** The response's media type; JSON unless said (the card-update pages answer HTML). */
  produces?: 'text/html';
  /** The header a processor signs the request in (webhooks). */
  signatureHeader?: string;
  /** Error statuses beyond the surface's usual ones (a signed, rate-limited cancel-session start: 401, 429). */
  alsoAnswers?: readonly number[];
}

export type WithContract<H> = H & { contract: RequestContract };

export function withContract<H extends object>(handler: H, contract: RequestContract): WithContract<H> {
  return Object.assign(handler, { contract });
}
