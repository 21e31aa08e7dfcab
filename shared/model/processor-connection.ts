import type { Tenant } from './tenant.ts';

/** Secrets to verify a processor's webhooks and, optionally, to call its API for retries. Never returned by the API. */
export type ProcessorCredentials =
  | { kind: 'stripe'; webhookSecret: string; apiKey: string | null }
  | { kind: 'braintree'; merchantId: string; publicKey: string; privateKey: string; merchantAccountId: string | null }
  | { kind: 'generic'; webhookSecret: string };

export interface ProcessorConnection {
  id: string;
  tenant: Tenant;
  psp: string;
  credentials: ProcessorCredentials;
  createdAt: string;
  updatedAt: string;
}
