import type { Environment } from './tenant.ts';

/** Secrets to verify a processor's webhooks and, optionally, to call its API for retries. Never returned by the API. */
export type ProcessorCredentials =
  | { kind: 'stripe'; webhookSecret: string; apiKey: string | null }
  | { kind: 'braintree'; merchantId: string; publicKey: string; privateKey: string; merchantAccountId: string | null }
  | { kind: 'generic'; webhookSecret: string };

/** A tenant's connection to one processor; its id is in the webhook URL the processor posts to. */
export interface ProcessorConnection {
  id: string;
  merchant_id: string;
  environment: Environment;
  psp: string;
  credentials: ProcessorCredentials;
  created_at: string;
  updated_at: string;
}
