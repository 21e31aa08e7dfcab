import type { Plan } from './plans.ts';

/** How an API key record remembers which hash items grant access for it (see api-keys store). */
export interface StoredGrant {
  hash: string;
  expires_at: string | null;
}

/** The merchant settings every authenticated request needs; copied onto each key-hash item (see data-model.md). */
export interface MerchantSettings {
  plan: Plan;
  rateLimitOverride: number | null;
  trialEndsAt: string | null;
  ipAllowlist: string[];
  settingsVersion: number;
}

export interface Merchant extends MerchantSettings {
  id: string;
  name: string;
  /**
   * Where customers update their payment method, linked from dunning messages (https only, see
   * payment-update-url.ts). Not a per-request setting, so not copied onto key hashes.
   */
  paymentUpdateUrl: string | null;
  createdAt: string;
  updatedAt: string;
}

export function settingsOf(merchant: MerchantSettings): MerchantSettings {
  const { plan, rateLimitOverride, trialEndsAt, ipAllowlist, settingsVersion } = merchant;
  return { plan, rateLimitOverride, trialEndsAt, ipAllowlist, settingsVersion };
}

/** What an operator may change: the per-request settings and the payment-update link. */
export type MerchantChange = Partial<Omit<MerchantSettings, 'settingsVersion'> & Pick<Merchant, 'paymentUpdateUrl'>>;
