import { newId } from '../../ids.ts';
import {
  activateCancelFlowWrites,
  archiveCancelFlowWrites,
  findActiveCancelFlowId,
  findCancelFlow,
  getCancelFlow,
  insertCancelFlow,
  listCancelFlows,
  saveCancelFlow,
} from '../../store/cancel-flows.ts';
import { newCancelFlow, refusal, type CancelFlow, type CancelFlowDefinition, type CancelFlowStatus } from '../../model/cancel-flow.ts';
import { stateConflict } from '../../model/errors.ts';
import type { Tenant } from '../../model/tenant.ts';
import { LOST, MERCHANT_WRITE, writeOptimistically, type ContentionPolicy } from '../contention.ts';

export { getCancelFlow } from '../../store/cancel-flows.ts';

/**
 * Every write is conditioned on the state it was decided from; losing a race means reading again and
 * deciding again. Only a burst of requests on one tenant's flows collides, so tries are few.
 */
const changedConcurrently = (flowId: string): ContentionPolicy => ({
  write: 'cancel_flow',
  attempts: 6,
  backoff: MERCHANT_WRITE,
  exhausted: () => stateConflict(`Cancel flow '${flowId}' was changed by another request at the same time; retry the request.`),
});

/** POST /v1/cancel-flows: a draft; activate it to have new cancel sessions run it. */
export async function createCancelFlow(
  tenant: Tenant,
  input: Omit<CancelFlowDefinition, 'allowed_origins'> & Partial<Pick<CancelFlowDefinition, 'allowed_origins'>>,
  now: Date,
): Promise<CancelFlow> {
  const flow = newCancelFlow(newId('cfl', now), { name: input.name, steps: input.steps, allowed_origins: input.allowed_origins ?? [] }, now);
  await insertCancelFlow(tenant, flow);
  return flow;
}

export async function listTenantCancelFlows(tenant: Tenant, status: CancelFlowStatus | undefined): Promise<CancelFlow[]> {
  const flows = await listCancelFlows(tenant);
  return status === undefined ? flows : flows.filter((flow) => flow.status === status);
}

/**
 * PUT /v1/cancel-flows/{id}: only the fields sent change. Allowed until archived, also on the active
 * flow: sessions already running keep the steps they started with (they carry a copy), new sessions
 * get the new ones.
 */
export async function updateCancelFlow(tenant: Tenant, flowId: string, change: Partial<CancelFlowDefinition>, now: Date): Promise<CancelFlow> {
  return writeOptimistically(changedConcurrently(flowId), async () => {
    const current = await getCancelFlow(tenant, flowId);
    const refused = refusal('update', current);
    if (refused) throw stateConflict(refused);
    const next: CancelFlow = { ...current, ...change, version: current.version + 1, updated_at: now.toISOString() };
    return (await saveCancelFlow(tenant, current, next)) === 'written' ? next : LOST;
  });
}

/**
 * Activate: draft or inactive → active, and the tenant's previously active flow → inactive, in one
 * transaction. Activating the active flow changes nothing and answers it as it is.
 */
export async function activateCancelFlow(tenant: Tenant, flowId: string, now: Date): Promise<CancelFlow> {
  return writeOptimistically(changedConcurrently(flowId), async () => {
    const current = await getCancelFlow(tenant, flowId);
    const refused = refusal('activate', current);
    if (refused) throw stateConflict(refused);
    if (current.status === 'active') return current;
    const pointer = (await findActiveCancelFlowId(tenant)) ?? null;
    const previousRead = pointer === null || pointer === flowId ? undefined : await findCancelFlow(tenant, pointer);
    // A request that lost a race decides again after others wrote: its times never precede what it read,
    // so no flow reads as deactivated before it was activated, nor activated before the one it replaced.
    const at = [now.toISOString(), current.updated_at, previousRead?.updated_at ?? ''].reduce((a, b) => (a > b ? a : b));
    const previous = previousRead && {
      read: previousRead,
      next: { ...previousRead, status: 'inactive' as const, deactivated_at: at, updated_at: at, version: previousRead.version + 1 },
    };
    const next: CancelFlow = { ...current, status: 'active', activated_at: at, updated_at: at, version: current.version + 1 };
    return (await activateCancelFlowWrites(tenant, current, next, previous, pointer)) === 'written' ? next : LOST;
  });
}

/** Archive: any status but archived → archived, for good. Archiving the active flow leaves the tenant with none (start answers 404). */
export async function archiveCancelFlow(tenant: Tenant, flowId: string, now: Date): Promise<CancelFlow> {
  return writeOptimistically(changedConcurrently(flowId), async () => {
    const current = await getCancelFlow(tenant, flowId);
    const refused = refusal('archive', current);
    if (refused) throw stateConflict(refused);
    const at = now.toISOString();
    const next: CancelFlow = { ...current, status: 'archived', archived_at: at, updated_at: at, version: current.version + 1 };
    return (await archiveCancelFlowWrites(tenant, current, next)) === 'written' ? next : LOST;
  });
}
