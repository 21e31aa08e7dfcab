import { runtime } from '../runtime.ts';
import { scheduler } from '../composition/scheduler.ts';
import { enrollForFailure, settleEnrollments } from '../domain/dunning/dunning.ts';
import { eventConsumer } from './consumers.ts';

/**
 * Dunning's side of the event log: failures that need the customer enroll into campaigns; recoveries
 * and terminal outcomes end the enrollments they settle. Enrolling is idempotent per failure and
 * campaign, settling is conditional on the enrollment being active, so redelivery is harmless.
 */
export const dunningConsumer = eventConsumer({
  name: 'dunning',
  types: ['payment.failed', 'payment.retry_failed', 'payment.recovered', 'payment.terminal'],
  async handle(tenant, event, configuration) {
    const payment = event.data;
    const now = runtime.clock.now();
    switch (event.type) {
      case 'payment.failed':
        await enrollForFailure({ scheduler }, configuration, tenant, payment.id, 'failure', now, event.created);
        return;
      case 'payment.retry_failed':
        // A retry that ends in dunning: soft retries exhausted (soft_decline campaigns) or a decline only the customer can fix.
        if (payment.status === 'communication_pending') {
          await enrollForFailure({ scheduler }, configuration, tenant, payment.id, payment.decline_category === 'soft_retry' ? 'soft_retries_exhausted' : 'failure', now, event.created);
        }
        return;
      case 'payment.recovered':
      case 'payment.terminal':
        await settleEnrollments({ scheduler }, tenant, payment, now);
        return;
    }
  },
});
