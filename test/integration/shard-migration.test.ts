import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { runtime } from '../../shared/runtime.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { tenantKey, tenantPk } from '../../shared/store/keys.ts';
import { call, newMerchant } from '../support/api.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { connect, GENERIC_SECRET, genericFailure, postGeneric } from '../support/webhooks.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const { db, tableName } = runtime;

/** `npm run ops -- tenants shard …` against this run's DynamoDB Local (TABLE_NAME is set, so the CLI uses the environment as it is). */
function shardCommand(args: string[]): Promise<{ code: number; report: any; stderr: string }> {
  return new Promise((resolve) => {
    const cli = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), ['bin/ops.ts', 'tenants', 'shard', ...args], { cwd: ROOT, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    cli.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    cli.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    cli.on('exit', (code) => resolve({ code: code ?? 1, report: code === 0 ? JSON.parse(stdout) : undefined, stderr }));
  });
}

/** Puts every item of the tenant back under its own key, as the code before sharding wrote them. */
async function unshard(tenant: Tenant): Promise<number> {
  const sharded = (await tenantItems(tenant, '')).filter((item) => item.pk !== tenantPk(tenant));
  for (const item of sharded) {
    await db.send(new PutCommand({ TableName: tableName, Item: { ...item, pk: tenantPk(tenant) } }));
    await db.send(new DeleteCommand({ TableName: tableName, Key: { pk: item.pk, sk: item.sk } }));
  }
  return sharded.length;
}

async function tenantWithFailures() {
  const merchant = await newMerchant();
  const tenant: Tenant = { merchantId: merchant.merchantId, environment: 'test' };
  const path = await connect(merchant.keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
  const payments: string[] = [];
  for (const code of ['insufficient_funds', 'expired_card', 'do_not_honor']) {
    const received = await postGeneric(path, genericFailure({ code }));
    expect(received.status).toBe(200);
    payments.push(received.body.payment_id);
  }
  return { merchant, tenant, payments };
}

describe('ops tenants shard: moving a table written before sharding', () => {
  it("moves one tenant's items to their shards, after which the API finds them all, and a second run moves nothing", { timeout: 180_000 }, async () => {
    // Prepare: three failures stored, then laid out as the code before sharding wrote them
    const { merchant, tenant, payments } = await tenantWithFailures();
    const before = (await tenantItems(tenant, '')).map((item) => item.sk).sort();
    const unsharded = await unshard(tenant);
    const key = merchant.keys.test_read;
    expect((await call('GET', `/v1/payments/${payments[0]}`, { key })).status).toBe(404);
    // Act
    const first = await shardCommand(['--merchant', tenant.merchantId, '--env', 'test']);
    const second = await shardCommand(['--merchant', tenant.merchantId, '--env', 'test']);
    // Assess: every item where the store looks for it, nothing sharded left on the old key
    expect(first.stderr).toBe('');
    expect(first.report).toMatchObject({ moved: unsharded, already_moved: 0, conflicts: [] });
    const after = await tenantItems(tenant, '');
    expect(after.map((item) => item.sk).sort()).toEqual(before);
    for (const item of after) expect(item.pk).toBe(tenantKey(tenant, item.sk).pk);
    expect(after.some((item) => item.pk === tenantPk(tenant))).toBe(true);
    expect(second.report).toMatchObject({ moved: 0, already_moved: 0, conflicts: [], unsharded: first.report.unsharded });
    const listed = await call('GET', '/v1/payments', { key, query: { per_page: '2' } });
    expect(listed.body).toMatchObject({ pagination: { total: 3 } });
    const all = [...listed.body.data, ...(await call('GET', '/v1/payments', { key, query: { per_page: '2', page: '2' } })).body.data];
    expect(all.map((payment: { id: string }) => payment.id).sort()).toEqual([...payments].sort());
    for (const id of payments) expect((await call('GET', `/v1/payments/${id}`, { key })).status).toBe(200);
  });

  it('finishes a move an interrupted run left on both keys, and leaves an item that differs on the two for the operator', { timeout: 180_000 }, async () => {
    // Prepare: the payments moved; one left also on the old key as it was copied, one changed since
    const { tenant, payments } = await tenantWithFailures();
    const [copied, changed] = (await Promise.all(
      payments.slice(0, 2).map(async (id) => (await db.send(new GetCommand({ TableName: tableName, Key: tenantKey(tenant, `PAYMENT#${id}`), ConsistentRead: true }))).Item!),
    )) as [Record<string, unknown>, Record<string, unknown>];
    await db.send(new PutCommand({ TableName: tableName, Item: { ...copied, pk: tenantPk(tenant) } }));
    await db.send(new PutCommand({ TableName: tableName, Item: { ...changed, pk: tenantPk(tenant), status: 'recovered' } }));
    // Act: every tenant of the table, as an operator runs it
    const run = await shardCommand([]);
    // Assess
    expect(run.report.already_moved).toBeGreaterThanOrEqual(1);
    expect(run.report.conflicts).toContainEqual({ pk: tenantPk(tenant), sk: `PAYMENT#${changed.id}` });
    const onOldKey = (await tenantItems(tenant, '')).filter((item) => item.pk === tenantPk(tenant) && item.entity === 'payment');
    expect(onOldKey.map((item) => [item.id, item.status])).toEqual([[changed.id, 'recovered']]);
    const kept = await db.send(new GetCommand({ TableName: tableName, Key: tenantKey(tenant, `PAYMENT#${changed.id}`), ConsistentRead: true }));
    expect(kept.Item).toEqual(changed);
  });
});
