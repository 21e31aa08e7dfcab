import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LOCAL_DIR, readJson, writeJson } from './credentials.ts';

/** Written once the store under .local/ has the current layout, so later starts skip the scans. */
const LAYOUT_FILE = join(LOCAL_DIR, 'store-layout.json');

/** How search prefixes are counted: one item per creation month (docs/data-model.md, "Customer search"). */
const SEARCH_COUNTS = 'month';

interface Layout {
  tenant_shards: number;
  search_counts?: string;
}

/**
 * A store kept under .local/ from an earlier version is brought to the current layout once, as an
 * operator brings a deployed table, before the server and its stream start: tenant items moved to
 * their shards (`ops tenants shard`, docs/data-model.md "One tenant's busiest keys"), then search
 * prefixes recounted by month (`ops search recount`). Needs the runtime's environment set: the store
 * reads it at import.
 */
export async function settleLocalStoreLayout(table: 'created' | 'kept'): Promise<void> {
  const layout = existsSync(LAYOUT_FILE) ? readJson<Layout>(LAYOUT_FILE) : undefined;
  if (layout?.search_counts === SEARCH_COUNTS) return;
  const { TENANT_SHARDS } = await import('../../shared/store/keys.ts');
  if (table === 'kept') {
    if (!layout) {
      const { moveToShards } = await import('../../shared/store/shard-migration.ts');
      const report = await moveToShards();
      if (report.moved > 0 || report.conflicts.length > 0) console.log(JSON.stringify({ message: 'Moved the local store to sharded tenant keys', ...report }));
      if (report.conflicts.length > 0) return;
    }
    const { recountSearchIndex, tenantsWithSearchRecords } = await import('../../shared/store/customer-search.ts');
    for (const tenant of await tenantsWithSearchRecords()) {
      console.log(JSON.stringify({ message: 'Recounted the local store\'s search prefixes by month', tenant, ...(await recountSearchIndex(tenant)) }));
    }
  }
  writeJson(LAYOUT_FILE, { tenant_shards: TENANT_SHARDS, search_counts: SEARCH_COUNTS } satisfies Layout);
}
