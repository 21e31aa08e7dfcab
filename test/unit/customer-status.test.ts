import { describe, expect, it } from 'vitest';
import { customerStatus, renews, type Subscription } from '../../shared/model/customer.ts';
import { churnedCustomer } from '../../shared/domain/cancel-flows/cancel-feedback.ts';

const subscription = (status: string | null): Subscription => ({
  id: 'sub_1',
  psp_subscription_id: 'ext_1',
  plan: null,
  amount: null,
  currency: null,
  status,
  current_period_end: null,
});

const customer = (statuses: (string | null)[], failed = 0, recovered = 0) => ({
  subscriptions: statuses.map(subscription),
  failed_payments: failed,
  recovered_payments: recovered,
});

describe('customer status (§3.3)', () => {
  it('is churned once every subscription has ended, in any processor spelling', () => {
    for (const ended of ['canceled', 'Canceled', 'cancelled', 'Expired', 'incomplete_expired']) {
      expect(customerStatus(customer([ended], 1)), ended).toBe('churned');
    }
    expect(customerStatus(customer(['canceled', 'Expired']))).toBe('churned');
  });

  it('is not churned while a subscription goes on, whatever else is open or won back', () => {
    expect(customerStatus(customer(['canceled', 'past_due'], 1))).toBe('active');
    expect(customerStatus(customer(['canceled', 'active'], 0, 2))).toBe('recovered');
    expect(customerStatus(customer(['paused']))).toBe('active');
    expect(customerStatus(customer([null]))).toBe('active');
    expect(customerStatus(customer([]))).toBe('active');
  });

  it('agrees with the calendar triggers: an ended subscription does not renew, nor a paused one', () => {
    expect(renews({ status: 'Expired' })).toBe(false);
    expect(renews({ status: 'paused' })).toBe(false);
    expect(renews({ status: 'past_due' })).toBe(true);
    expect(renews({ status: null })).toBe(true);
  });

  it('does not churn a customer twice for a subscription that ended in another spelling', () => {
    const known = { ...customer(['Expired']), id: 'cus_1', status: 'churned' as const, version: 1 } as unknown as Parameters<typeof churnedCustomer>[0];
    expect(churnedCustomer(known, 'sub_1', new Date())).toBeUndefined();
  });
});
