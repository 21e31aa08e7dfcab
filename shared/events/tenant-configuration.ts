import type { Tenant } from '../model/tenant.ts';
import type { TenantConfiguration } from '../model/tenant-configuration.ts';
import { listCampaignItems } from '../store/campaigns.ts';
import { listEndpoints } from '../store/webhook-endpoints.ts';

/** The tenant's configuration, each part read on first use and then kept: one per tenant per stream batch. */
export function tenantConfiguration(tenant: Tenant): TenantConfiguration {
  let campaigns: ReturnType<TenantConfiguration['campaigns']> | undefined;
  let webhookEndpoints: ReturnType<TenantConfiguration['webhookEndpoints']> | undefined;
  return {
    campaigns: () => (campaigns ??= listCampaignItems(tenant)),
    webhookEndpoints: () => (webhookEndpoints ??= listEndpoints(tenant)),
  };
}
