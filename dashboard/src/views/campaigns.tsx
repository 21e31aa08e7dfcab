import { answer, api } from '../api/client.ts';
import type { paths } from '../api/schema.gen.ts';
import { usePermission } from '../caller.ts';
import type { Filter } from '../components/filter-form.tsx';
import { FilteredList } from '../components/filtered-list.tsx';
import { Status, Time } from '../components/values.tsx';
import { rate, words } from '../format.ts';
import { href } from '../router.ts';
import { TableHead } from '../components/table-head.tsx';

type CampaignQuery = NonNullable<paths['/v1/campaigns']['get']['parameters']['query']>;

export const TRIGGERS = ['payment_failed', 'card_expiring', 'card_expired', 'soft_decline', 'repeated_failure', 'high_value_churn', 'pre_dunning', 'manual', 'any_decline'] as const;

const FILTERS: Filter[] = [
  { name: 'status', label: 'Status', options: ['draft', 'active', 'paused', 'archived'] },
  { name: 'trigger', label: 'Trigger', options: TRIGGERS },
  { name: 'sort', label: 'Sort by', options: ['created_at', 'name', 'status'], noAny: true },
  { name: 'order', label: 'Order', options: ['desc', 'asc'], noAny: true },
];

export function CampaignList({ query }: { query: URLSearchParams }) {
  const create = usePermission('POST /v1/campaigns');
  return (
    <section aria-labelledby="campaigns-title">
      <div class="page-head">
        <h1 id="campaigns-title">Campaigns</h1>
        {create.allowed ? (
          <a class="button-link" href={href('/campaigns/new')}>
            New campaign
          </a>
        ) : (
          <span class="reason">New campaign: {create.reason}</span>
        )}
      </div>
      <FilteredList
        path="/campaigns"
        filters={FILTERS}
        query={query}
        load={(values) => answer(api.GET('/v1/campaigns', { params: { query: { per_page: 20, ...values } as unknown as CampaignQuery } }))}
        what="Campaigns"
        label="Filter campaigns"
        empty="No campaigns yet: a campaign messages customers whose payment failed until they fix it."
        emptyFiltered="No campaign matches."
      >
        {(items) => (
          <>
            <TableHead columns={['Name', 'Status', 'Trigger', 'Steps', 'Enrolled', 'Recovered', 'Recovery rate', 'Created']} />
            <tbody>
              {items.map((campaign) => (
                <tr>
                  <td>
                    <a href={href(`/campaigns/${campaign.id}`)}>{campaign.name}</a>
                  </td>
                  <td>
                    <Status value={campaign.status} />
                  </td>
                  <td>{words(campaign.trigger)}</td>
                  <td>
                    {campaign.steps_count} ({campaign.channels.join(', ') || '—'})
                  </td>
                  <td>{campaign.enrolled_count}</td>
                  <td>{campaign.recovered_count}</td>
                  <td>{rate(campaign.recovery_rate)}</td>
                  <td>
                    <Time at={campaign.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </>
        )}
      </FilteredList>
    </section>
  );
}
