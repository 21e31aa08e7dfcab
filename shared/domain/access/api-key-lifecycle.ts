import { newId } from '../../ids.ts';
import { getApiKey, insertApiKey, listApiKeys, markRevoked, replaceSecret } from '../../store/api-keys.ts';
import { getMerchant } from '../../store/merchants.ts';
import { generateKey, hashKey, keyHint, normalizeScopes, ROTATION_GRACE_SECONDS, WIDGET_SCOPE, type ApiKeyRecord, type KeyGrant, type KeyKind, type Scope } from '../../model/api-key.ts';
import { stateConflict, validationFailed } from '../../model/errors.ts';
import { requestsPerWindow, RATE_LIMIT_WINDOW_SECONDS } from '../../model/plans.ts';
import type { Tenant } from '../../model/tenant.ts';
import { settingsOf } from '../../model/merchant.ts';

export interface NewKeyRequest {
  name: string;
  kind: KeyKind;
  scopes?: Scope[];
  expiresAt?: string;
}

export interface IssuedKey {
  record: ApiKeyRecord;
  secret: string;
}

/** A key that has been rotated this many times within the grace period must wait for old secrets to lapse. */
const MAX_LIVE_SECRETS = 10;

export type KeyStatus = 'active' | 'expired' | 'revoked';

export function keyStatus(record: ApiKeyRecord, now: Date): KeyStatus {
  if (record.revoked_at !== null) return 'revoked';
  if (record.valid_until !== null && record.valid_until <= now.toISOString()) return 'expired';
  return 'active';
}

export async function issueApiKey(tenant: Tenant, request: NewKeyRequest, now: Date): Promise<IssuedKey> {
  if (request.expiresAt !== undefined && request.expiresAt <= now.toISOString()) {
    throw validationFailed('expires_at must be in the future', 'expires_at');
  }
  if (request.kind === 'publishable' && request.scopes !== undefined) {
    throw validationFailed(`Publishable keys carry only the '${WIDGET_SCOPE}' scope; omit scopes`, 'scopes');
  }
  if (request.kind === 'secret' && (request.scopes === undefined || request.scopes.length === 0)) {
    throw validationFailed('A secret key needs at least one scope', 'scopes');
  }
  const merchant = await getMerchant(tenant.merchantId);
  const secret = generateKey(request.kind, tenant.environment);
  const hash = hashKey(secret);
  const record: ApiKeyRecord = {
    id: newId('key', now),
    merchant_id: tenant.merchantId,
    environment: tenant.environment,
    name: request.name,
    kind: request.kind,
    scopes: request.kind === 'publishable' ? [WIDGET_SCOPE] : normalizeScopes(request.scopes!),
    hint: keyHint(secret),
    created_at: now.toISOString(),
    valid_until: request.expiresAt ?? null,
    rotated_at: null,
    revoked_at: null,
    grants: [{ hash, expires_at: null }],
  };
  await insertApiKey(record, hash, settingsOf(merchant));
  return { record, secret };
}

/** New secret now; the previous one keeps working for the 24 h grace (§5 rule 2), never past the key's own expiry. */
export async function rotateApiKey(tenant: Tenant, keyId: string, now: Date): Promise<IssuedKey> {
  // The merchant's current settings go into the new secret's grant; read beside the key, not after it.
  const [current, merchant] = await Promise.all([getApiKey(tenant, keyId), getMerchant(tenant.merchantId)]);
  const status = keyStatus(current, now);
  if (status !== 'active') throw stateConflict(`API key '${keyId}' is ${status} and cannot be rotated`);
  const retiring = current.grants.find((grant) => grant.expires_at === null);
  if (!retiring) throw stateConflict(`API key '${keyId}' has no current secret to rotate`);
  const graceEnd = new Date(now.getTime() + ROTATION_GRACE_SECONDS * 1000).toISOString();
  const graceUntil = current.valid_until !== null && current.valid_until < graceEnd ? current.valid_until : graceEnd;
  const stillValid = current.grants.filter((grant) => grant.expires_at !== null && grant.expires_at > now.toISOString());
  if (stillValid.length + 2 > MAX_LIVE_SECRETS) {
    throw stateConflict(`API key '${keyId}' was rotated too often; wait until earlier secrets pass their grace period`);
  }
  const secret = generateKey(current.kind, tenant.environment);
  const hash = hashKey(secret);
  const next: ApiKeyRecord = {
    ...current,
    hint: keyHint(secret),
    rotated_at: now.toISOString(),
    grants: [...stillValid, { hash: retiring.hash, expires_at: graceUntil }, { hash, expires_at: null }],
  };
  await replaceSecret(current, next, hash, retiring.hash, graceUntil, settingsOf(merchant));
  return { record: next, secret };
}

/** Immediate: the current secret and any still in their grace period stop working together. */
export async function revokeApiKey(tenant: Tenant, keyId: string, now: Date): Promise<ApiKeyRecord> {
  const current = await getApiKey(tenant, keyId);
  if (current.revoked_at !== null) throw stateConflict(`API key '${keyId}' is already revoked`);
  return markRevoked(current, now.toISOString());
}

export async function listKeys(tenant: Tenant): Promise<ApiKeyRecord[]> {
  const records = await listApiKeys(tenant);
  // Newest first, ties by id; ids are lowercase ASCII, so code-unit order (localeCompare's first call loads ICU's collation data, some 6 ms of a cold start).
  const newestFirst = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);
  return records.sort((a, b) => newestFirst(a.created_at, b.created_at) || newestFirst(a.id, b.id));
}

/** Who a key is (GET /v1/auth/me); the merchant's terms only for a key that stays on a server. */
export interface Caller {
  merchant_id: string;
  environment: Tenant['environment'];
  livemode: boolean;
  key_id: string;
  key_type: KeyGrant['kind'];
  scopes: KeyGrant['scopes'];
  key_expires_at: string | null;
  rate_limit: { limit: number; window_seconds: number };
  plan?: KeyGrant['settings']['plan'];
  trial_ends_at?: string | null;
  ip_allowlist?: string[];
}

export function describeCaller(grant: KeyGrant): Caller {
  const { settings } = grant;
  const key = {
    merchant_id: grant.tenant.merchantId,
    environment: grant.tenant.environment,
    livemode: grant.tenant.environment === 'live',
    key_id: grant.key_id,
    key_type: grant.kind,
    scopes: grant.scopes,
    key_expires_at: grant.valid_until,
    rate_limit: {
      limit: requestsPerWindow(settings.plan, settings.rateLimitOverride),
      window_seconds: RATE_LIMIT_WINDOW_SECONDS,
    },
  };
  // A publishable key lives in web pages: whoever reads it learns what it may do, not the merchant's terms or networks.
  if (grant.kind === 'publishable') return key;
  return { ...key, plan: settings.plan, trial_ends_at: settings.trialEndsAt, ip_allowlist: settings.ipAllowlist };
}
