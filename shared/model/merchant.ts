import type { Plan } from './plans.ts';

/** How an API key record remembers which hash items grant access for it (see api-keys store). */
export interface StoredGrant {
  hash: string;
  expires_at: string | null;
}

/**
 * The merchant settings every authenticated request needs, copied onto each key-hash item (see
 * data-model.md) as one nested value under these names: the copies already written keep them.
 */
export interface MerchantSettings {
  plan: Plan;
  rateLimitOverride: number | null;
  trialEndsAt: string | null;
  ipAllowlist: string[];
  settingsVersion: number;
}

/** The merchant profile, stored and read in these field names (`ops merchant` prints them). */
export interface Merchant {
  id: string;
  name: string;
  plan: Plan;
  /** Requests per window instead of the plan's (enterprise only, §8). */
  rate_limit_override: number | null;
  trial_ends_at: string | null;
  ip_allowlist: string[];
  /**
   * Where customers update their payment method, linked from dunning messages (https only, see
   * payment-update-url.ts). Not a per-request setting, so not copied onto key hashes.
   */
  payment_update_url: string | null;
  /** Bumped by every change; key creation and settings changes are conditioned on it. */
  settings_version: number;
  created_at: string;
  updated_at: string;
}

export function settingsOf(merchant: Merchant): MerchantSettings {
  return {
    plan: merchant.plan,
    rateLimitOverride: merchant.rate_limit_override,
    trialEndsAt: merchant.trial_ends_at,
    ipAllowlist: merchant.ip_allowlist,
    settingsVersion: merchant.settings_version,
  };
}

/** What an operator may change: the per-request settings and the payment-update link. */
export type MerchantChange = Partial<Pick<Merchant, 'plan' | 'rate_limit_override' | 'trial_ends_at' | 'ip_allowlist' | 'payment_update_url'>>;
