import { createHmac, timingSafeEqual } from 'node:crypto';
import { randomSecret } from '../../ids.ts';
import { ROTATION_GRACE_SECONDS } from '../../model/api-key.ts';
import type { CancelSigningSecret, CancelSigningSecrets } from '../../model/cancel-signing-secrets.ts';
import { ServiceError, stateConflict } from '../../model/errors.ts';

/**
 * Signed cancel-session starts. The merchant's server signs which subscriber may start a session
 * (`auth_hash`), so knowing a merchant id (public) and a subscriber's processor ids is not enough to
 * cancel someone's subscription: the HMAC-SHA256, in lowercase hex, of `<customer_id>:<subscription_id>`
 * (the body's strings exactly) under the merchant's cancel signing secret of that environment.
 * Required in live mode; in test mode checked when sent. Pure rules here; cancel-signing-lifecycle.ts
 * keeps the secrets.
 */
/** A rolled-out secret is accepted this long after the roll, as a rotated API key is (§8). */
export const SIGNING_GRACE_SECONDS = ROTATION_GRACE_SECONDS;

/** Rolls within one grace period are bounded, so the item stays small: each rolled-out secret is kept until its grace ends. */
const MAX_ACCEPTED_SECRETS = 10;

export const SIGNING_SECRET_PATTERN = /^cfsec_[0-9A-Za-z]{32}$/;

const newSecret = (now: Date): CancelSigningSecret => ({ secret: `cfsec_${randomSecret(32)}`, created_at: now.toISOString(), expires_at: null });

export const firstSigningSecrets = (now: Date): CancelSigningSecrets => ({ secrets: [newSecret(now)], version: 1 });

export function currentSecret(record: CancelSigningSecrets): CancelSigningSecret {
  const current = record.secrets.find((entry) => entry.expires_at === null);
  if (!current) throw new Error('A cancel signing secret record has no current secret');
  return current;
}

/** The secrets a start may be signed with at `now`: the current one and those still in their grace period. */
export function acceptedSecrets(record: CancelSigningSecrets, now: Date): CancelSigningSecret[] {
  return record.secrets.filter((entry) => entry.expires_at === null || entry.expires_at > now.toISOString());
}

/** When the secrets a roll replaces stop being accepted: after the grace, or at once (a leaked secret). */
export const EXPIRE_PREVIOUS = ['in_24_hours', 'now'] as const;
export type ExpirePrevious = (typeof EXPIRE_PREVIOUS)[number];

/**
 * A new current secret. The previous one, and those rolled out before it that are still accepted,
 * keep working to the end of their grace; with 'now' none of them does.
 */
export function rolled(record: CancelSigningSecrets, now: Date, expirePrevious: ExpirePrevious): CancelSigningSecrets {
  if (expirePrevious === 'now') return { secrets: [newSecret(now)], version: record.version + 1 };
  const graceEnd = new Date(now.getTime() + SIGNING_GRACE_SECONDS * 1000).toISOString();
  const retiring = { ...currentSecret(record), expires_at: graceEnd };
  const stillAccepted = acceptedSecrets(record, now).filter((entry) => entry.expires_at !== null);
  if (stillAccepted.length + 2 > MAX_ACCEPTED_SECRETS) {
    throw stateConflict(
      'The cancel signing secret was rolled too often; wait until earlier secrets pass their 24-hour grace period, or roll with expire_previous "now"',
    );
  }
  return { secrets: [newSecret(now), retiring, ...stillAccepted], version: record.version + 1 };
}

/** When the last rolled-out secret stops being accepted, or null when none is. */
export function graceEndsAt(record: CancelSigningSecrets, now: Date): string | null {
  const ends = acceptedSecrets(record, now).flatMap((entry) => (entry.expires_at === null ? [] : [entry.expires_at]));
  return ends.length === 0 ? null : ends.reduce((latest, end) => (end > latest ? end : latest));
}

/** What the merchant's server computes for a start (README, "Signing the start"). */
export function authHash(secret: string, customerId: string, subscriptionId: string): string {
  return createHmac('sha256', secret).update(`${customerId}:${subscriptionId}`, 'utf8').digest('hex');
}

/** Compared in constant time against every accepted secret (no early exit tells which, or how close). */
function signedByAny(secrets: readonly CancelSigningSecret[], given: string, customerId: string, subscriptionId: string): boolean {
  const candidate = Buffer.from(given, 'utf8');
  let matched = false;
  for (const { secret } of secrets) {
    const expected = Buffer.from(authHash(secret, customerId, subscriptionId), 'utf8');
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
  }
  return matched;
}

export interface SignedStart {
  environment: 'live' | 'test';
  customerId: string;
  subscriptionId: string;
  authHash?: string;
}

const invalidSignature = (message: string): ServiceError => new ServiceError('invalid_signature', message);

/**
 * Refuses a start whose auth_hash is missing in live mode or does not match. The refusal does not
 * say whether the merchant has a secret at all: a merchant that never read one has nothing to sign with.
 */
export function checkStartSignature(start: SignedStart, record: CancelSigningSecrets | undefined, now: Date): void {
  if (start.authHash === undefined) {
    if (start.environment === 'test') return;
    throw invalidSignature(
      'auth_hash is required in live mode: the lowercase hex HMAC-SHA256 of "<customer_id>:<subscription_id>" under your cancel signing secret (GET /v1/cancel-flows/signing-secret), computed on your server.',
    );
  }
  if (!record || !signedByAny(acceptedSecrets(record, now), start.authHash, start.customerId, start.subscriptionId)) {
    throw invalidSignature('auth_hash does not match customer_id and subscription_id under the cancel signing secret of this environment.');
  }
}
