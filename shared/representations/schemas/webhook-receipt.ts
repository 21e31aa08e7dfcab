import * as z from '../../zod.ts';
import { prefixedId } from './common.ts';

/** A processor webhook's acknowledgement: what the event changed. */
export const webhookReceiptSchema = z
  .strictObject({
    received: z.literal(true),
    event_id: z.string().meta({ description: "the processor's event id" }),
    outcome: z.enum(['created', 'duplicate', 'updated', 'ignored', 'erased']).meta({
      description:
        'created: a new payment; duplicate: already recorded, nothing changed; updated: an existing payment or customer changed; ignored: a type not consumed, or about a customer never seen fail; erased: about a customer or charge erased after the event happened, nothing stored (docs/privacy.md)',
    }),
    payment_id: prefixedId('pay').optional(),
    customer_id: prefixedId('cus').optional(),
  })
  .meta({ id: 'WebhookReceipt' });

export type WebhookReceipt = z.output<typeof webhookReceiptSchema>;
