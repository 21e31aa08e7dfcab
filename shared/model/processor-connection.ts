import type { Envelope } from './envelope.ts';
import { tenantOf, type Environment, type Tenant } from './tenant.ts';

/** Secrets to verify a processor's webhooks and, optionally, to call its API for retries. Never returned by the API; stored sealed (StoredCredentials). */
export type ProcessorCredentials =
  | { kind: 'stripe'; webhookSecret: string; apiKey: string | null }
  | { kind: 'braintree'; merchantId: string; publicKey: string; privateKey: string; merchantAccountId: string | null }
  | { kind: 'generic'; webhookSecret: string };

/** The credentials as an item holds them. */
export type StoredCredentials =
  /** Sealed under the credentials key (shared/domain/ingestion/processor-credentials.ts opens them). */
  | { sealed: Envelope }
  /** Written before credentials were sealed, until `npm run ops -- processors encrypt-secrets` seals them. */
  | { plaintext: ProcessorCredentials };

export interface ProcessorConnection {
  id: string;
  tenant: Tenant;
  psp: string;
  /** Whether the credentials let the service call the processor's API (retries, offers): shown without opening them. */
  apiAccess: boolean;
  credentials: StoredCredentials;
  createdAt: string;
  updatedAt: string;
}

/**
 * A connection as its item holds it, under the spec's names: the credentials sealed, or, in items
 * written before credentials were sealed, in plaintext until `ops processors encrypt-secrets`.
 */
export interface ProcessorConnectionRecord {
  id: string;
  merchant_id: string;
  environment: Environment;
  psp: string;
  /** Absent in plaintext items, which are judged by their credentials. */
  api_access?: boolean;
  sealed_credentials?: Envelope;
  credentials?: ProcessorCredentials;
  created_at: string;
  updated_at: string;
}

/** The connection a stored record describes. */
export function connectionOf(record: ProcessorConnectionRecord): ProcessorConnection {
  const plaintext = record.credentials;
  return {
    id: record.id,
    tenant: tenantOf(record),
    psp: record.psp,
    apiAccess: plaintext ? hasApiAccess(plaintext) : record.api_access === true,
    credentials: plaintext ? { plaintext } : { sealed: record.sealed_credentials! },
    createdAt: record.created_at,
    updatedAt: record.updated_at,
  };
}

/** The record a connection is written as: always sealed. */
export function recordOf(connection: SealedConnection): ProcessorConnectionRecord {
  return {
    id: connection.id,
    merchant_id: connection.tenant.merchantId,
    environment: connection.tenant.environment,
    psp: connection.psp,
    api_access: connection.apiAccess,
    sealed_credentials: connection.credentials.sealed,
    created_at: connection.createdAt,
    updated_at: connection.updatedAt,
  };
}

/** A connection as this service writes it. */
export type SealedConnection = ProcessorConnection & { credentials: { sealed: Envelope } };

/** A connection with its credentials opened, in the memory of a function that calls the processor or verifies its webhooks. */
export interface OpenedConnection extends Omit<ProcessorConnection, 'credentials'> {
  credentials: ProcessorCredentials;
}

export function hasApiAccess(credentials: ProcessorCredentials): boolean {
  return credentials.kind === 'braintree' || (credentials.kind === 'stripe' && credentials.apiKey !== null);
}
