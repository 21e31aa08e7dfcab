import { createHash } from 'node:crypto';
import { randomSecret } from '../ids.ts';
import type { MerchantSettings, StoredGrant } from './merchant.ts';
import type { Environment, Tenant } from './tenant.ts';

/** Scopes a secret key can hold (§5 rule 3). `admin` implies every other; `write` implies `read`. */
export const SCOPES = ['read', 'write', 'admin', 'analytics', 'webhooks'] as const;
export type Scope = (typeof SCOPES)[number];

/** Publishable keys live in the browser: they carry only this scope, which no data route accepts. */
export const WIDGET_SCOPE = 'widget';
export type GrantedScope = Scope | typeof WIDGET_SCOPE;

/** What a route demands: any one of the listed scopes, or just a valid key. */
export type ScopeRequirement = readonly Scope[] | 'any';

export type KeyKind = 'secret' | 'publishable';

/** Key grace after rotation (§8). */
export const ROTATION_GRACE_SECONDS = 24 * 60 * 60;

const KEY_PATTERN = /^svc_(live|test|pub)_([0-9A-Za-z]{32})$/;

export interface KeyShape {
  kind: KeyKind;
  /** Secret keys name their environment; a publishable key's environment is on its record. */
  environment?: Environment;
}

export function parseKeyShape(raw: string): KeyShape | undefined {
  const match = KEY_PATTERN.exec(raw);
  if (!match) return undefined;
  const prefix = match[1]!;
  return prefix === 'pub' ? { kind: 'publishable' } : { kind: 'secret', environment: prefix as Environment };
}

export function generateKey(kind: KeyKind, environment: Environment): string {
  const prefix = kind === 'publishable' ? 'pub' : environment;
  return `svc_${prefix}_${randomSecret(32)}`;
}

/** Keys carry ~190 random bits, so a fast hash is enough: there is nothing to brute-force. */
export function hashKey(raw: string): string {
  return createHash('sha256').update(raw).digest('hex');
}

/** The last four characters, shown in listings so a merchant can tell keys apart without the secret. */
export function keyHint(raw: string): string {
  return raw.slice(-4);
}

export function scopeSatisfied(granted: readonly GrantedScope[], required: ScopeRequirement): boolean {
  if (required === 'any') return true;
  if (granted.includes('admin')) return true;
  return required.some((scope) => granted.includes(scope) || (scope === 'read' && granted.includes('write')));
}

export function normalizeScopes(scopes: readonly Scope[]): Scope[] {
  return SCOPES.filter((scope) => scopes.includes(scope));
}

/** The merchant-facing record of a key (never holds the secret). */
export interface ApiKeyRecord {
  id: string;
  merchant_id: string;
  environment: Environment;
  name: string;
  kind: KeyKind;
  scopes: GrantedScope[];
  hint: string;
  created_at: string;
  /** When the key stops working, if it was created with an expiry. */
  valid_until: string | null;
  rotated_at: string | null;
  revoked_at: string | null;
  /** The hashes that authenticate as this key: the current secret's, and rotated-out ones in their grace period. */
  grants: StoredGrant[];
}

/** What one secret's hash grants: the key it belongs to, with the merchant's settings copied on (data-model.md). */
export interface KeyHash {
  key_id: string;
  merchant_id: string;
  environment: Environment;
  kind: KeyKind;
  scopes: GrantedScope[];
  /** When this secret stops working: the key's expiry, or the end of its grace period once rotated out. */
  valid_until: string | null;
  settings: MerchantSettings;
}

/** What presenting a key grants, as every authenticated request carries it: the key hash and the tenant it names. */
export interface KeyGrant extends KeyHash {
  tenant: Tenant;
}
