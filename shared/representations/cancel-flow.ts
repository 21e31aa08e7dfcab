import type { CancelFlow } from '../model/cancel-flow.ts';
import type { CancelFlowResource } from './schemas/cancel-flow.ts';

/** The cancel flow as the merchant API shows it (snake_case, every field; flows are small). */
export function cancelFlowResource(flow: CancelFlow): CancelFlowResource {
  return {
    id: flow.id,
    name: flow.name,
    status: flow.status,
    steps_count: flow.steps.length,
    // Spread, so each step keeps its own step_type and config pairing.
    steps: flow.steps.map((step, index) => ({ index, ...step })),
    allowed_origins: flow.allowed_origins,
    created_at: flow.created_at,
    updated_at: flow.updated_at,
    activated_at: flow.activated_at,
    deactivated_at: flow.deactivated_at,
    archived_at: flow.archived_at,
  };
}
