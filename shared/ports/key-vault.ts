/**
 * Where the keys that seal secrets at rest come from (envelope encryption, shared/envelope.ts): a
 * fresh data key per sealing, handed out in the clear for one encryption and wrapped under a key that
 * never leaves the vault. KMS (a customer-managed key) in AWS; a key file under .local/ for the local
 * server and the tests.
 */

/**
 * Names what a data key protects (for processor credentials: the tenant and the processor). A key
 * wrapped under one context opens only under the same one, so a sealed value copied into another
 * tenant's item cannot be opened there; KMS also records it in CloudTrail with every use.
 */
export type EncryptionContext = Readonly<Record<string, string>>;

export interface DataKey {
  /** 256 bits for one encryption; the caller zeroes it once used. */
  plaintext: Uint8Array;
  /** The same key wrapped under the vault's key: stored beside the ciphertext. */
  wrapped: Uint8Array;
  /** The vault key that wrapped it (a KMS key ARN, or `local:<fingerprint>`). */
  keyId: string;
}

export interface KeyVault {
  generateDataKey(context: EncryptionContext): Promise<DataKey>;
  /** The plaintext of a wrapped data key; refused when the context differs from the one it was generated with. */
  decryptDataKey(wrapped: Uint8Array, context: EncryptionContext): Promise<Uint8Array>;
}
