import * as z from '../../zod.ts';
import { offerConfig } from '../../model/cancel-flow-steps.ts';
import { count, prefixedId, timestamp } from './common.ts';
import { OUTCOMES } from '../../model/cancel-session.ts';

const acceptedOffer = z.unknown().meta({ description: "the response's accepted_offer, any JSON value as the widget sent it, or null" });

/** A completed cancel session's feedback. */
export const cancelFeedbackSchema = z
  .strictObject({
    session_id: prefixedId('cfs'),
    cancel_flow_id: prefixedId('cfl'),
    outcome: z.enum(OUTCOMES),
    reason: z.string(),
    sub_reason: z.string().nullable(),
    free_text: z.string().nullable(),
    responses: z.array(z.strictObject({ step: count, step_type: z.string(), response_json: z.string(), accepted_offer: acceptedOffer })),
    accepted_offer: acceptedOffer,
    offer: offerConfig.nullable().meta({ description: "the flow's own configuration of the offer accepted on a save" }),
    offer_application: z
      .strictObject({
        status: z.enum(['pending', 'applied', 'manual', 'failed']),
        reason: z.string().nullable(),
        reference: z.string().nullable(),
        updated_at: timestamp,
      })
      .nullable(),
    customer_id: prefixedId('cus').nullable().meta({ description: 'null when the subscriber is not a customer the service knows' }),
    subscription_id: prefixedId('sub').nullable(),
    external_customer_id: z.string().meta({ description: 'the id the widget sent' }),
    external_subscription_id: z.string(),
    started_at: timestamp,
    completed_at: timestamp,
  })
  .meta({ id: 'CancelFeedback' });

export type CancelFeedbackResource = z.output<typeof cancelFeedbackSchema>;
