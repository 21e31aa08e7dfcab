import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LOCAL_DIR, writeJson } from './credentials.ts';

/** Written once the store under .local/ holds tenant items on their shards, so later starts skip the scan. */
const LAYOUT_FILE = join(LOCAL_DIR, 'store-layout.json');

/**
 * A store kept under .local/ from before tenant items were spread over shards is moved once, as
 * `ops tenants shard` moves a deployed table (docs/data-model.md, "One tenant's busiest keys").
 * Needs the runtime's environment set: the store reads it at import.
 */
export async function settleLocalStoreLayout(table: 'created' | 'kept'): Promise<void> {
  if (existsSync(LAYOUT_FILE)) return;
  const { TENANT_SHARDS } = await import('../../shared/store/keys.ts');
  if (table === 'kept') {
    const { moveToShards } = await import('../../shared/store/shard-migration.ts');
    const report = await moveToShards();
    if (report.moved > 0 || report.conflicts.length > 0) console.log(JSON.stringify({ message: 'Moved the local store to sharded tenant keys', ...report }));
    if (report.conflicts.length > 0) return;
  }
  writeJson(LAYOUT_FILE, { tenant_shards: TENANT_SHARDS });
}
