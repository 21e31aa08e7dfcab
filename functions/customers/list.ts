import { listCustomers } from '#shared/domain/customers/customer-queries';
import { customerListQuery } from '#shared/http/customer-list-query';
import { restHandler } from '#shared/http/rest-handler';
import { pageOf } from '#shared/http/responses';
import { customerListItem } from '#shared/representations/customer';

/** GET /v1/customers (§4.2): search, filters, four orders, pages. */
export const handler = restHandler({ query: customerListQuery }, async ({ auth, query }) => {
  const { items, total } = await listCustomers(auth.tenant, query);
  return pageOf(items.map(customerListItem), total, query);
});
