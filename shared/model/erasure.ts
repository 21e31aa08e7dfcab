/**
 * The record of a customer's erasure (GDPR). It holds no personal data: the service's own random
 * customer id, when, and how many payment records were anonymised. It is written before anything is
 * erased, so a crashed erasure is visibly unfinished and a repeated DELETE resumes it, and it stays
 * afterwards so a repeated DELETE gets the same answer.
 */
export interface ErasureRecord {
  customer_id: string;
  state: 'in_progress' | 'completed';
  started_at: string;
  completed_at: string | null;
  anonymized_records: number;
  /** The steps before the customer's items that are done: a resent DELETE goes on after them (absent on records from before steps were kept). */
  steps_done?: ErasureStep[];
}

/**
 * The erasure's steps that are not about one item, in order: the tombstone that makes events from
 * before the erasure recognised, then the sweeps of idempotency records and widget sessions naming the person.
 */
export type ErasureStep = 'tombstone' | 'idempotency_records' | 'subscriber_sessions';
