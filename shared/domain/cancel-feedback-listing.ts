import { listFeedback } from '../store/cancel-feedback.ts';
import type { CancelFeedback } from './cancel-feedback.ts';
import type { Outcome } from './cancel-sessions.ts';
import type { Tenant } from './tenant.ts';

export async function listCancelFeedback(tenant: Tenant, filter: { outcome?: Outcome; cancelFlowId?: string }): Promise<CancelFeedback[]> {
  const records = await listFeedback(tenant);
  return records.filter(
    (record) => (filter.outcome === undefined || record.outcome === filter.outcome) && (filter.cancelFlowId === undefined || record.cancel_flow_id === filter.cancelFlowId),
  );
}
