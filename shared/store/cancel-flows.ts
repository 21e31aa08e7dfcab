import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import { originChanges, type CancelFlow } from '../model/cancel-flow.ts';
import type { Tenant } from '../model/tenant.ts';
import { registerOriginWrite, unregisterOriginWrite } from './cors-origins.ts';
import { missingResource } from './cross-environment.ts';
import { tenantKey, tenantPk } from './keys.ts';
import { transact, type TransactItem } from './transactions.ts';
import { queryAll, type Item } from './dynamo.ts';
import { entityOf, storedItem } from './items.ts';

const { db, tableName } = runtime;

/**
 * Cancel flow items (docs/data-model.md): each flow under `CANCELFLOW#<id>`, and one pointer item per
 * tenant naming the active flow. The pointer is what makes "exactly one active flow per merchant and
 * environment" a write condition: activation swaps it conditioned on the flow it replaces, in the
 * transaction that changes both flows' statuses.
 */
const FLOW_PREFIX = 'CANCELFLOW#';
export const cancelFlowSk = (flowId: string): string => `${FLOW_PREFIX}${flowId}`;
const ACTIVE_SK = 'CANCELFLOW_ACTIVE';

/** `written`, or `changed`: something moved under us (flow version, active pointer, a racing transaction); read again. */
export type FlowWrite = 'written' | 'changed';

const toItem = (tenant: Tenant, flow: CancelFlow) => storedItem(tenantKey(tenant, cancelFlowSk(flow.id)), 'cancel_flow', flow);

const fromItem = (item: Item): CancelFlow => entityOf<CancelFlow>(item);

/** The item naming the tenant's active flow. */
interface ActivePointer {
  flow_id: string;
}

export async function findCancelFlow(tenant: Tenant, flowId: string): Promise<CancelFlow | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: tenantKey(tenant, cancelFlowSk(flowId)), ConsistentRead: true }),
  );
  return Item ? fromItem(Item) : undefined;
}

export async function getCancelFlow(tenant: Tenant, flowId: string): Promise<CancelFlow> {
  const flow = await findCancelFlow(tenant, flowId);
  if (!flow) throw await missingResource(tenant, cancelFlowSk(flowId), 'cancel flow', flowId);
  return flow;
}

/** The tenant's flows, newest first (ids sort by creation time). */
export async function listCancelFlows(tenant: Tenant): Promise<CancelFlow[]> {
  const items = await queryAll(db, {
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': tenantPk(tenant), ':prefix': FLOW_PREFIX },
    ScanIndexForward: false,
    ConsistentRead: true,
  });
  return items.map(fromItem);
}

/** The id of the tenant's active flow, if any. */
export async function findActiveCancelFlowId(tenant: Tenant): Promise<string | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: tenantKey(tenant, ACTIVE_SK), ConsistentRead: true }),
  );
  return Item && entityOf<ActivePointer>(Item).flow_id;
}

/** The active flow itself: what a new cancel session runs. */
export async function findActiveCancelFlow(tenant: Tenant): Promise<CancelFlow | undefined> {
  const flowId = await findActiveCancelFlowId(tenant);
  return flowId === undefined ? undefined : findCancelFlow(tenant, flowId);
}

/** The whole flow item, only if it is still the version it was decided from. */
function flowWrite(tenant: Tenant, readVersion: number, next: CancelFlow): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: toItem(tenant, next),
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':version': readVersion },
    },
  };
}

/** Points the tenant at `to` (or at nothing), only if it still points at `from`. */
function pointerWrite(tenant: Tenant, from: string | null, to: string | null): TransactItem {
  const key = tenantKey(tenant, ACTIVE_SK);
  const condition =
    from === null
      ? { ConditionExpression: 'attribute_not_exists(pk)' }
      : { ConditionExpression: 'flow_id = :from', ExpressionAttributeValues: { ':from': from } };
  if (to === null) return { Delete: { TableName: tableName, Key: key, ...condition } };
  return { Put: { TableName: tableName, Item: storedItem<ActivePointer>(key, 'cancel_flow_active', { flow_id: to }), ...condition } };
}

function registryWrites(tenant: Tenant, flowId: string, before: readonly string[], after: readonly string[]): TransactItem[] {
  const { added, removed } = originChanges(before, after);
  return [...added.map((origin) => registerOriginWrite(tenant, origin, flowId)), ...removed.map((origin) => unregisterOriginWrite(tenant, origin))];
}

async function commit(writes: TransactItem[]): Promise<FlowWrite> {
  return (await transact(writes)).committed ? 'written' : 'changed';
}

export async function insertCancelFlow(tenant: Tenant, flow: CancelFlow): Promise<void> {
  const outcome = await transact([{ Put: { TableName: tableName, Item: toItem(tenant, flow), ConditionExpression: 'attribute_not_exists(pk)' } }]);
  if (!outcome.committed) throw new Error(`Cancel flow id ${flow.id} already exists`);
}

/** A changed definition; an active flow's origins move in the public registry in the same transaction. */
export function saveCancelFlow(tenant: Tenant, read: CancelFlow, next: CancelFlow): Promise<FlowWrite> {
  const registry = read.status === 'active' ? registryWrites(tenant, read.id, read.allowed_origins, next.allowed_origins) : [];
  return commit([flowWrite(tenant, read.version, next), ...registry]);
}

/**
 * Makes `next` the tenant's one active flow: the pointer moves from the previous active flow (if
 * any) to it, the previous one becomes inactive, and the registry follows, all or nothing.
 */
export function activateCancelFlowWrites(
  tenant: Tenant,
  read: CancelFlow,
  next: CancelFlow,
  previous: { read: CancelFlow; next: CancelFlow } | undefined,
  pointer: string | null,
): Promise<FlowWrite> {
  const writes = [flowWrite(tenant, read.version, next), pointerWrite(tenant, pointer, next.id)];
  if (previous) writes.push(flowWrite(tenant, previous.read.version, previous.next));
  writes.push(...registryWrites(tenant, next.id, previous?.read.allowed_origins ?? [], next.allowed_origins));
  return commit(writes);
}

/** Archives a flow; an active one also stops being the tenant's active flow, and its origins leave the registry. */
export function archiveCancelFlowWrites(tenant: Tenant, read: CancelFlow, next: CancelFlow): Promise<FlowWrite> {
  const writes = [flowWrite(tenant, read.version, next)];
  if (read.status === 'active') writes.push(pointerWrite(tenant, read.id, null), ...registryWrites(tenant, read.id, read.allowed_origins, []));
  return commit(writes);
}
