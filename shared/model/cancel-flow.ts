import type { CancelFlowStep } from './cancel-flow-steps.ts';

/**
 * Cancel flows (issue 7): the ordered steps a subscriber walks through before canceling, defined per
 * merchant and environment through /v1/cancel-flows. One flow per tenant is active at a time; the
 * cancel-session API runs the active one. What a flow may contain (the step schemas) is in
 * cancel-flow-steps.ts, loaded only by the functions that validate steps.
 */
export const CANCEL_FLOW_STATUSES = ['draft', 'active', 'inactive', 'archived'] as const;
export type CancelFlowStatus = (typeof CANCEL_FLOW_STATUSES)[number];

/** What a merchant defines; everything else on a flow is lifecycle. */
export interface CancelFlowDefinition {
  name: string;
  steps: CancelFlowStep[];
  /** Browser origins (besides the deployment's CORS_ORIGINS) allowed to run this flow's sessions while it is active. */
  allowed_origins: string[];
}

export interface CancelFlow extends CancelFlowDefinition {
  id: string;
  status: CancelFlowStatus;
  /** Bumped by every change; writes are conditioned on the version they were decided from. */
  version: number;
  created_at: string;
  updated_at: string;
  activated_at: string | null;
  deactivated_at: string | null;
  archived_at: string | null;
}

export type CancelFlowAction = 'update' | 'activate' | 'archive';

/** Why an action is refused in the flow's current status (the 409 message), or undefined when allowed. */
export function refusal(action: CancelFlowAction, flow: Pick<CancelFlow, 'id' | 'status'>): string | undefined {
  if (flow.status !== 'archived') return undefined;
  const verb = action === 'update' ? 'changed' : action === 'activate' ? 'activated' : 'archived again';
  return `Cancel flow '${flow.id}' is archived and cannot be ${verb}. Create a new flow instead.`;
}

/** A new flow from its creation input: a draft, to be activated separately (like campaigns, §3.1). */
export function newCancelFlow(id: string, definition: CancelFlowDefinition, now: Date): CancelFlow {
  const at = now.toISOString();
  return {
    id,
    status: 'draft',
    ...definition,
    version: 1,
    created_at: at,
    updated_at: at,
    activated_at: null,
    deactivated_at: null,
    archived_at: null,
  };
}

/** Origins that change in the public registry when a tenant's active origins go from `before` to `after`. */
export function originChanges(before: readonly string[], after: readonly string[]): { added: string[]; removed: string[] } {
  return { added: after.filter((origin) => !before.includes(origin)), removed: before.filter((origin) => !after.includes(origin)) };
}
