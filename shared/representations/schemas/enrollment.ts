import * as z from '../../zod.ts';
import { ENROLLMENT_STATUSES, SKIP_REASONS, type StopReason } from '../../model/enrollment.ts';
import { count, prefixedId, timestamp, type Assert, type Same } from './common.ts';

const STOP_REASONS = ['recovered', 'terminal', 'card_updated', 'max_attempts', 'archived', 'no_contact', 'occasion_passed', 'subscription_ended'] as const;

export const enrollmentSchema = z
  .strictObject({
    id: prefixedId('enr'),
    object: z.literal('enrollment'),
    campaign_id: prefixedId('cmp'),
    campaign_version: z.int().min(1),
    customer_id: prefixedId('cus'),
    payment_id: prefixedId('pay').nullable().meta({ description: 'the failure that enrolled the customer; null for a manual enrollment without one' }),
    status: z.enum(ENROLLMENT_STATUSES),
    stop_reason: z.enum(STOP_REASONS).nullable(),
    next_step: count,
    next_step_at: timestamp.nullable(),
    messages_sent: count,
    skipped_steps: z
      .array(
        z.strictObject({
          step: count.meta({ description: 'index of the step in the campaign version the enrollment joined' }),
          reason: z.enum(SKIP_REASONS).meta({
            description:
              'no_address: no email or phone number on file for the channel; channel_unavailable: the deployment has no sender for the channel; recipient_rejected: the provider refused the message to this recipient for good (invalid or opted-out address); sender_rejected: the provider refused the sender; duplicate: the campaign messaged the customer about another of their failures less than 12 hours before',
          }),
          at: timestamp,
        }),
      )
      .meta({ description: 'steps that came due but sent nothing, oldest first; they do not count toward max_attempts and the sequence goes on' }),
    recovered_at: timestamp.nullable().meta({
      description:
        "when the campaign was credited with recovering the failure (set as the credit is recorded; judged by when the payment was recovered): while the customer was in the sequence, within 7 days after it ended having messaged them (run out of steps, max_attempts, or their card update), or when a sequence stopped by a terminal outcome saw the payment paid after all; null otherwise",
    }),
    enrolled_at: timestamp,
  })
  .meta({ id: 'Enrollment' });

export type EnrollmentResource = z.output<typeof enrollmentSchema>;

export type StopReasonsListed = Assert<Same<(typeof STOP_REASONS)[number], StopReason>>;
