import type { Enrollment } from '../model/enrollment.ts';
import type { EnrollmentResource } from './schemas/enrollment.ts';

export function enrollmentResource(enrollment: Enrollment): EnrollmentResource {
  return {
    id: enrollment.id,
    object: 'enrollment',
    campaign_id: enrollment.campaign_id,
    campaign_version: enrollment.campaign_version,
    customer_id: enrollment.customer_id,
    payment_id: enrollment.payment_id,
    status: enrollment.status,
    stop_reason: enrollment.stop_reason,
    next_step: enrollment.next_step,
    next_step_at: enrollment.next_step_at,
    messages_sent: enrollment.messages_sent,
    skipped_steps: enrollment.skipped_steps ?? [],
    recovered_at: enrollment.recovered_at ?? null,
    enrolled_at: enrollment.enrolled_at,
  };
}
