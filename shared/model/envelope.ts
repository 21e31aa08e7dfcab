/**
 * A secret sealed by envelope encryption: AES-256-GCM under a data key of its own, the data key
 * stored only wrapped by the key vault. The encryption context is bound twice: to the wrapped key
 * (the vault refuses another context) and to the ciphertext (as GCM's additional data).
 */
export interface Envelope {
  /** The format: 1 = AES-256-GCM, 96-bit IV, 128-bit tag, the data key wrapped by the vault. */
  v: 1;
  /** The vault key the data key was wrapped under, to know which items a change of key must reseal. */
  key_id: string;
  wrapped_key: string;
  iv: string;
  tag: string;
  ciphertext: string;
}
