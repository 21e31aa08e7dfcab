import { lockTimeout } from '../../model/errors.ts';
import type { Tenant } from '../../model/tenant.ts';
import { syncSearchIndex } from '../../store/customer-search.ts';
import { BACKGROUND_WRITE, LOST, writeOptimistically, type ContentionPolicy } from '../contention.ts';

/** Renames racing the index change: a few tries, then the stream delivers the event again. */
const indexRaces = (customerId: string): ContentionPolicy => ({
  write: 'search-index',
  attempts: 5,
  backoff: BACKGROUND_WRITE,
  exhausted: () => lockTimeout(`The search index of customer ${customerId} changed under every try; the stream delivers the event again.`),
});

/** Brings a customer's search entries to the customer as stored (docs/data-model.md, "Customer search"). */
export const indexCustomerForSearch = (tenant: Tenant, customerId: string): Promise<void> =>
  writeOptimistically(indexRaces(customerId), async () => ((await syncSearchIndex(tenant, customerId)) ? undefined : LOST));
