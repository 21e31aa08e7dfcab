import { brandingProblem, defaultBranding, type Branding, type StoredBranding } from '../../model/branding.ts';
import { validationFailed } from '../../model/errors.ts';
import type { Tenant } from '../../model/tenant.ts';
import { findStoredBranding, saveBranding } from '../../store/branding.ts';
import { findMerchant } from '../../store/merchants.ts';
import { LOST, MERCHANT_WRITE, writeOptimistically, type ContentionPolicy } from '../contention.ts';

/**
 * The merchant's branding (GET and PUT /v1/settings/branding, `ops branding set`): what its messages
 * and the card-update page show its customers. A change names only the fields it changes; the others
 * keep their stored value, or the default when none was ever stored.
 */
export interface BrandingView extends Branding {
  /** When the merchant last changed it; null while it is the default. */
  updated_at: string | null;
}

const SAVING: ContentionPolicy = { write: 'branding', attempts: 5, backoff: MERCHANT_WRITE };

async function currentBranding(tenant: Tenant): Promise<{ stored: StoredBranding | undefined; branding: Branding }> {
  const stored = await findStoredBranding(tenant);
  if (stored) return { stored, branding: stored };
  const merchant = await findMerchant(tenant.merchantId);
  return { stored, branding: defaultBranding(merchant?.name ?? 'your subscription') };
}

const view = (branding: Branding, updatedAt: string | null): BrandingView => ({
  name: branding.name,
  logo_url: branding.logo_url,
  accent_color: branding.accent_color,
  support_email: branding.support_email,
  updated_at: updatedAt,
});

export async function brandingSettings(tenant: Tenant): Promise<BrandingView> {
  const { stored, branding } = await currentBranding(tenant);
  return view(branding, stored?.updated_at ?? null);
}

export async function updateBranding(tenant: Tenant, change: Partial<Branding>, now: Date): Promise<BrandingView> {
  return writeOptimistically(SAVING, async () => {
    const { stored, branding } = await currentBranding(tenant);
    const next: StoredBranding = {
      ...branding,
      ...change,
      ...(change.accent_color === undefined ? {} : { accent_color: change.accent_color.toLowerCase() }),
      version: (stored?.version ?? 0) + 1,
      updated_at: now.toISOString(),
    };
    const problem = brandingProblem(next);
    if (problem) throw validationFailed(`Invalid ${problem.field}: ${problem.reason}`, problem.field);
    if (!(await saveBranding(tenant, next, stored?.version ?? null))) return LOST;
    return view(next, next.updated_at);
  });
}
