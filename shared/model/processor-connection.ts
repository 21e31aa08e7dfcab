import type { Envelope } from './envelope.ts';
import type { Tenant } from './tenant.ts';

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

/** A connection as this service writes it. */
export type SealedConnection = ProcessorConnection & { credentials: { sealed: Envelope } };

/** A connection with its credentials opened, in the memory of a function that calls the processor or verifies its webhooks. */
export interface OpenedConnection extends Omit<ProcessorConnection, 'credentials'> {
  credentials: ProcessorCredentials;
}

export function hasApiAccess(credentials: ProcessorCredentials): boolean {
  return credentials.kind === 'braintree' || (credentials.kind === 'stripe' && credentials.apiKey !== null);
}
