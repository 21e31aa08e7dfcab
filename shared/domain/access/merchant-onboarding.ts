import { newId } from '../../ids.ts';
import { getMerchant, insertMerchant, updateMerchantSettings } from '../../store/merchants.ts';
import { issueApiKey } from './api-key-lifecycle.ts';
import type { Scope } from '../../model/api-key.ts';
import { paymentUpdateUrlProblem } from '../../model/payment-update-url.ts';
import { CUSTOM_RATE_LIMIT_PLAN, MAX_CUSTOM_RATE_LIMIT, type Plan } from '../../model/plans.ts';
import type { Environment } from '../../model/tenant.ts';
import type { Merchant, MerchantChange } from '../../model/merchant.ts';

export interface MerchantTerms {
  name?: string;
  plan?: Plan;
  trialEndsAt?: string | null;
  ipAllowlist?: string[];
  rateLimitOverride?: number | null;
  /** null clears it. */
  paymentUpdateUrl?: string | null;
}

/** The keys every new merchant starts with, by the names the local credentials file uses. */
const STARTER_KEYS: { name: string; environment: Environment; scopes?: Scope[] }[] = [
  { name: 'test_admin', environment: 'test', scopes: ['admin'] },
  { name: 'test_read', environment: 'test', scopes: ['read'] },
  { name: 'test_write', environment: 'test', scopes: ['write'] },
  { name: 'live_admin', environment: 'live', scopes: ['admin'] },
  { name: 'pub', environment: 'test' },
];

function checkTerms(terms: MerchantTerms): void {
  const override = terms.rateLimitOverride;
  if (override !== undefined && override !== null && (!Number.isInteger(override) || override < 1 || override > MAX_CUSTOM_RATE_LIMIT)) {
    throw new RangeError(`rate limit override must be an integer from 1 to ${MAX_CUSTOM_RATE_LIMIT}`);
  }
  if (override !== undefined && override !== null && terms.plan !== undefined && terms.plan !== CUSTOM_RATE_LIMIT_PLAN) {
    throw new RangeError(`a custom rate limit is for the ${CUSTOM_RATE_LIMIT_PLAN} plan only (§8), not ${terms.plan}`);
  }
  const problem = terms.paymentUpdateUrl ? paymentUpdateUrlProblem(terms.paymentUpdateUrl) : null;
  if (problem) throw new RangeError(`payment update URL ${problem}`);
}

export async function onboardMerchant(terms: MerchantTerms, now: Date): Promise<{ merchant: Merchant; keys: Record<string, string> }> {
  checkTerms({ ...terms, plan: terms.plan ?? 'starter' });
  const id = newId('mer', now);
  const merchant: Merchant = {
    id,
    name: terms.name ?? id,
    plan: terms.plan ?? 'starter',
    rate_limit_override: terms.rateLimitOverride ?? null,
    trial_ends_at: terms.trialEndsAt ?? null,
    ip_allowlist: terms.ipAllowlist ?? [],
    payment_update_url: terms.paymentUpdateUrl ? new URL(terms.paymentUpdateUrl).href : null,
    settings_version: 1,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  await insertMerchant(merchant);
  const keys: Record<string, string> = {};
  for (const key of STARTER_KEYS) {
    const { secret } = await issueApiKey(
      { merchantId: id, environment: key.environment },
      { name: key.name, kind: key.scopes ? 'secret' : 'publishable', scopes: key.scopes },
      now,
    );
    keys[key.name] = secret;
  }
  return { merchant, keys };
}

/** Changing the plan is an upgrade: it ends a trial unless a trial end is given with it. */
export async function changeMerchantTerms(merchantId: string, terms: MerchantTerms, now: Date): Promise<Merchant> {
  // A custom rate limit is checked against the plan it would apply under: the one given, else the merchant's.
  const customLimit = terms.rateLimitOverride !== undefined && terms.rateLimitOverride !== null;
  checkTerms(customLimit && terms.plan === undefined ? { ...terms, plan: (await getMerchant(merchantId)).plan } : terms);
  const change: MerchantChange = {};
  if (terms.plan !== undefined) change.plan = terms.plan;
  if (terms.trialEndsAt !== undefined) change.trial_ends_at = terms.trialEndsAt;
  else if (terms.plan !== undefined) change.trial_ends_at = null;
  if (terms.ipAllowlist !== undefined) change.ip_allowlist = terms.ipAllowlist;
  if (terms.rateLimitOverride !== undefined) change.rate_limit_override = terms.rateLimitOverride;
  if (terms.paymentUpdateUrl !== undefined) change.payment_update_url = terms.paymentUpdateUrl === null ? null : new URL(terms.paymentUpdateUrl).href;
  return updateMerchantSettings(merchantId, change, now);
}
