export const ENVIRONMENTS = ['live', 'test'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** Whose data a request may touch: the merchant and environment its API key belongs to. */
export interface Tenant {
  merchantId: string;
  environment: Environment;
}

/** The tenant of a stored record, which names it by `merchant_id` and `environment` as the spec's objects do. */
export const tenantOf = (owner: { merchant_id: string; environment: Environment }): Tenant => ({
  merchantId: owner.merchant_id,
  environment: owner.environment,
});
