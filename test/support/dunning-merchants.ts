import { expect } from 'vitest';
import type { Tenant } from '../../shared/model/tenant.ts';
import { call, newMerchant } from './api.ts';
import { connect, GENERIC_SECRET } from './webhooks.ts';

/** A merchant connected to the generic processor, with a one-step campaign on failures, active. */
export async function merchantWithCampaign() {
  const merchant = await newMerchant();
  const tenant: Tenant = { merchantId: merchant.merchantId, environment: 'test' };
  const path = await connect(merchant.keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
  const created = await call('POST', '/v1/campaigns', {
    key: merchant.keys.test_write,
    body: { name: 'Card problems', trigger: 'payment_failed', steps: [{ channel: 'email', template_id: 'tpl_update_payment_method', subject: 'Action needed', delay_hours: 1 }] },
  });
  const campaignId = created.body.data.id as string;
  expect((await call('POST', `/v1/campaigns/${campaignId}/activate`, { key: merchant.keys.test_write })).status).toBe(200);
  return { tenant, path, key: merchant.keys.test_read, campaignId };
}
