import { expect } from 'vitest';
import type { Tenant } from '../../shared/model/tenant.ts';
import { advanceClock, call, newMerchant } from './api.ts';
import { tenantItems } from './tenant-items.ts';
import { connect, GENERIC_SECRET, genericFailure, postGeneric } from './webhooks.ts';

/** A merchant with two generic processors connected (acme, zeta), so psp filters have something to tell apart. */
export async function merchantWithProcessors() {
  const merchant = await newMerchant();
  const tenant: Tenant = { merchantId: merchant.merchantId, environment: 'test' };
  const paths = {
    acme: await connect(merchant.keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET }),
    zeta: await connect(merchant.keys.test_admin, 'zeta', { webhook_secret: GENERIC_SECRET }),
  };
  return { ...merchant, tenant, paths };
}

export interface FailureSpec {
  psp?: 'acme' | 'zeta';
  code?: string | null;
  amount?: number;
  currency?: string;
  customer?: string;
  email?: string;
  name?: string;
  /** The processor's subscription id (unique ones let a whole-table scan look for it). */
  subscription?: string;
  /** Seconds to move the clock forward before this failure arrives. */
  after?: number;
}

/** Posts one signed failure through the real webhook receiver; returns the payment and customer it created. */
export async function recordFailure(paths: Record<'acme' | 'zeta', string>, spec: FailureSpec = {}) {
  if (spec.after) advanceClock(spec.after);
  const event = genericFailure({ code: spec.code, amount: spec.amount, currency: spec.currency, customerId: spec.customer, email: spec.email });
  if (spec.name !== undefined) event.customer.name = spec.name;
  if (spec.subscription !== undefined) event.subscription.id = spec.subscription;
  const response = await postGeneric(paths[spec.psp ?? 'acme'], event);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return { paymentId: response.body.payment_id as string, customerId: response.body.customer_id as string, event };
}

/** The processor reports the failed charge paid after all. */
export async function recordSuccess(path: string, failure: ReturnType<typeof genericFailure>) {
  const response = await postGeneric(path, { ...failure, id: `${failure.id}_paid`, type: 'payment.succeeded' });
  expect(response.status).toBe(200);
}

/** Every page of a list, read with the given page size. */
export async function readAllPages(key: string, path: string, query: Record<string, string>, perPage: number) {
  const ids: string[] = [];
  const totals = new Set<number>();
  for (let page = 1; ; page++) {
    const response = await call('GET', path, { key, query: { ...query, page: String(page), per_page: String(perPage) } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const { pagination, data } = response.body;
    totals.add(pagination.total);
    ids.push(...data.map((item: { id: string }) => item.id));
    expect(pagination).toEqual({ total: pagination.total, page, per_page: perPage, total_pages: Math.ceil(pagination.total / perPage) });
    if (page >= pagination.total_pages) {
      expect(data.length).toBe(pagination.total - (page - 1) * perPage > 0 ? pagination.total - (page - 1) * perPage : 0);
      break;
    }
    expect(data).toHaveLength(perPage);
  }
  expect(totals.size).toBe(1);
  return { ids, total: [...totals][0]! };
}

export const storedPayments = (tenant: Tenant) => tenantItems(tenant, 'PAYMENT#');
export const storedCustomers = (tenant: Tenant) => tenantItems(tenant, 'CUSTOMER#');

/** Byte order of UTF-8, as DynamoDB sorts string keys. */
export const byKey = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
