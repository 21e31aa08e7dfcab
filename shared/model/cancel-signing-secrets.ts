/** The secrets of a merchant's environment that sign its cancel-session starts, stored as one item. */

/** One secret a merchant's server signs cancel-session starts with (domain/cancel-flows/cancel-signing.ts). */
export interface CancelSigningSecret {
  secret: string;
  created_at: string;
  /** null for the current secret; when a rolled-out one stops being accepted. */
  expires_at: string | null;
}

export interface CancelSigningSecrets {
  /** The current secret first, then those rolled out and still accepted. */
  secrets: CancelSigningSecret[];
  /** Optimistic-lock counter. */
  version: number;
}
