import * as z from 'zod';
import { ENROLLMENT_STATUSES, type StopReason } from '../../domain/enrollments.ts';
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
    enrolled_at: timestamp,
  })
  .meta({ id: 'Enrollment' });

export type EnrollmentResource = z.output<typeof enrollmentSchema>;

export type StopReasonsListed = Assert<Same<(typeof STOP_REASONS)[number], StopReason>>;
