export const ENVIRONMENTS = ['live', 'test'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** Whose data a request may touch: the merchant and environment its API key belongs to. */
export interface Tenant {
  merchantId: string;
  environment: Environment;
}
