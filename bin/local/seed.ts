import { runtime } from '../../shared/composition.ts';
import { onboardMerchant } from '../../shared/domain/merchant-onboarding.ts';
import { findMerchant } from '../../shared/store/merchants.ts';
import type { Credentials } from './credentials.ts';

/**
 * The demo merchant (enterprise plan) and its keys. Reused while the data it names still exists, so
 * credentials stay stable across restarts on disk; created afresh for a new or in-memory store.
 */
export async function seedDemoMerchant(previous: Credentials | undefined, baseUrl: string): Promise<Credentials> {
  if (previous && (await findMerchant(previous.merchant_id))) {
    return { ...previous, base_url: baseUrl, edge_url: baseUrl };
  }
  const { merchant, keys } = await onboardMerchant({ name: 'Demo merchant', plan: 'enterprise' }, runtime.clock.now());
  return { base_url: baseUrl, edge_url: baseUrl, merchant_id: merchant.id, keys };
}
