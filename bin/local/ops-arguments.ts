import { SCOPES, type Scope } from '../../shared/model/api-key.ts';
import type { NewKeyRequest } from '../../shared/domain/access/api-key-lifecycle.ts';
import { parseAllowlistEntry } from '../../shared/domain/access/ip-allowlist.ts';
import type { MerchantTerms } from '../../shared/domain/access/merchant-onboarding.ts';
import type { Branding } from '../../shared/model/branding.ts';
import { PLAN_NAMES, type Plan } from '../../shared/model/plans.ts';
import { ENVIRONMENTS, type Environment, type Tenant } from '../../shared/model/tenant.ts';

/** Turns the ops CLI's flags into domain requests, refusing bad values with a RangeError the CLI reports as usage. */
type Flags = Partial<Record<string, string | boolean>>;

function text(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  return typeof value === 'string' ? value : undefined;
}

function timestamp(value: string, flag: string): string {
  const at = new Date(value);
  if (Number.isNaN(at.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(value)) throw new RangeError(`--${flag} must be an ISO 8601 timestamp`);
  return at.toISOString();
}

export function parseMerchantTerms(flags: Flags): MerchantTerms {
  const terms: MerchantTerms = {};
  const name = text(flags, 'name');
  if (name !== undefined) terms.name = name;
  const plan = text(flags, 'plan');
  if (plan !== undefined) {
    if (!PLAN_NAMES.includes(plan as Plan)) throw new RangeError(`--plan must be one of ${PLAN_NAMES.join(', ')}`);
    terms.plan = plan as Plan;
  }
  const trialEnds = text(flags, 'trial-ends');
  if (trialEnds !== undefined) terms.trialEndsAt = trialEnds === 'none' ? null : timestamp(trialEnds, 'trial-ends');
  const allowlist = text(flags, 'ip-allowlist');
  if (allowlist !== undefined) {
    terms.ipAllowlist = allowlist
      .split(',')
      .filter((entry) => entry.trim() !== '')
      .map((entry) => {
        const parsed = parseAllowlistEntry(entry);
        if (!parsed) throw new RangeError(`--ip-allowlist entry '${entry}' is not an IPv4 address or CIDR range`);
        return parsed;
      });
  }
  const rateLimit = text(flags, 'rate-limit');
  if (rateLimit !== undefined) terms.rateLimitOverride = rateLimit === 'none' ? null : Number(rateLimit);
  const updateUrl = text(flags, 'payment-update-url');
  if (updateUrl !== undefined) terms.paymentUpdateUrl = updateUrl === 'none' ? null : updateUrl;
  return terms;
}

export function parseTenant(flags: Flags): Tenant {
  const merchantId = text(flags, 'merchant');
  if (!merchantId) throw new RangeError('--merchant is required');
  const environment = text(flags, 'env');
  if (!ENVIRONMENTS.includes(environment as Environment)) throw new RangeError('--env must be test or live');
  return { merchantId, environment: environment as Environment };
}

/** The branding fields given; `none` clears the logo or the support address. The domain checks the values. */
export function parseBrandingChange(flags: Flags): Partial<Branding> {
  const change: Partial<Branding> = {};
  const name = text(flags, 'name');
  if (name !== undefined) change.name = name;
  const logo = text(flags, 'logo-url');
  if (logo !== undefined) change.logo_url = logo === 'none' ? null : logo;
  const color = text(flags, 'accent-color');
  if (color !== undefined) change.accent_color = color;
  const email = text(flags, 'support-email');
  if (email !== undefined) change.support_email = email === 'none' ? null : email;
  if (Object.keys(change).length === 0) throw new RangeError('give at least one of --name, --logo-url, --accent-color, --support-email');
  return change;
}

export function parseKeyRequest(flags: Flags): { tenant: Tenant; request: NewKeyRequest } {
  const tenant = parseTenant(flags);
  const environment = tenant.environment;
  const kind = text(flags, 'type') ?? 'secret';
  if (kind !== 'secret' && kind !== 'publishable') throw new RangeError('--type must be secret or publishable');
  const scopes = text(flags, 'scopes')?.split(',').map((scope) => scope.trim());
  for (const scope of scopes ?? []) {
    if (!SCOPES.includes(scope as Scope)) throw new RangeError(`--scopes entry '${scope}' is not one of ${SCOPES.join(', ')}`);
  }
  if (kind === 'secret' && !scopes?.length) throw new RangeError('--scopes is required for a secret key');
  const expires = text(flags, 'expires');
  return {
    tenant,
    request: {
      name: text(flags, 'name') ?? `${environment} key`,
      kind,
      scopes: kind === 'secret' ? (scopes as Scope[]) : undefined,
      expiresAt: expires === undefined ? undefined : timestamp(expires, 'expires'),
    },
  };
}
