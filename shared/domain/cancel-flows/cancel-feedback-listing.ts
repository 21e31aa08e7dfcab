import { listFeedback } from '../../store/cancel-feedback.ts';
import type { Tenant } from '../../model/tenant.ts';
import type { Outcome } from '../../model/cancel-session.ts';
import type { CancelFeedback } from '../../model/cancel-feedback.ts';

/**
 * Newest first by when the subscriber finished: a record exists from its completion, so a client
 * reading the first page for what is new sees it there, whenever its session started (the stored
 * order, by session id, is the order sessions started).
 */
export async function listCancelFeedback(tenant: Tenant, filter: { outcome?: Outcome; cancelFlowId?: string }): Promise<CancelFeedback[]> {
  const records = await listFeedback(tenant);
  return records
    .filter((record) => (filter.outcome === undefined || record.outcome === filter.outcome) && (filter.cancelFlowId === undefined || record.cancel_flow_id === filter.cancelFlowId))
    .sort((a, b) => b.completed_at.localeCompare(a.completed_at) || b.session_id.localeCompare(a.session_id));
}
