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
}
