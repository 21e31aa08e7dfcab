import * as z from '../../zod.ts';
import { prefixedId, timestamp } from './common.ts';

/** Where to point a processor's webhooks; never a secret. */
export const processorConnectionSchema = z
  .strictObject({
    id: prefixedId('con'),
    psp: z.string(),
    webhook_url: z.url(),
    retries_enabled: z.boolean().meta({ description: 'whether the service can retry payments at this processor (live mode)' }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'ProcessorConnection' });

export type ProcessorConnectionResource = z.output<typeof processorConnectionSchema>;
