import { indexCustomerForSearch } from '../domain/customers/customer-search-index.ts';
import { eventConsumer } from './consumers.ts';

/**
 * Customer search follows the customers' writes through the stream, as Stripe's search lags its
 * writes (docs/decisions.md, "The search index follows the stream"): each event of a new or renamed
 * customer has the index brought to the customer as stored, so a late or repeated one changes nothing.
 */
export const searchIndexConsumer = eventConsumer({
  name: 'search-index',
  types: ['customer.created', 'customer.renamed'],
  handle: (tenant, event) => indexCustomerForSearch(tenant, event.data.id),
});
