import { useState } from 'preact/hooks';
import { answer, api, idempotencyKey } from '../api/client.ts';
import type { components } from '../api/schema.gen.ts';
import { Bars } from '../components/bars.tsx';
import { ActionButton } from '../components/controls.tsx';
import type { Filter } from '../components/filter-form.tsx';
import { FilteredList } from '../components/filtered-list.tsx';
import { LineChart } from '../components/line-chart.tsx';
import { Empty, ErrorNotice, Resolved } from '../components/states.tsx';
import { Status, Time } from '../components/values.tsx';
import { count, rate, words } from '../format.ts';
import { useAction, useLoad } from '../load.ts';
import { TableHead } from '../components/table-head.tsx';

type CancelFlow = components['schemas']['CancelFlow'];
type Feedback = components['schemas']['CancelFeedback'];

/** How much feedback the summary reads: the latest completed sessions, newest first, a page of 100 at a time. */
const SUMMARY_PAGES = 5;
const CHART_DAYS = 30;

async function latestFeedback(): Promise<{ records: Feedback[]; total: number }> {
  const records: Feedback[] = [];
  let total = 0;
  for (let page = 1; page <= SUMMARY_PAGES; page++) {
    const answered = await answer(api.GET('/v1/cancel-feedback', { params: { query: { page, per_page: 100 } } }));
    records.push(...answered.data);
    total = answered.pagination.total;
    if (page >= answered.pagination.total_pages) break;
  }
  return { records, total };
}

const FILTERS: Filter[] = [{ name: 'outcome', label: 'Outcome', options: ['saved', 'churned'] }];

export function CancelFlows({ query }: { query: URLSearchParams }) {
  const flows = useLoad(() => answer(api.GET('/v1/cancel-flows', { params: { query: { per_page: 100 } } })), 'flows');
  const summary = useLoad(latestFeedback, 'summary');
  return (
    <section aria-labelledby="cancel-flows-title">
      <h1 id="cancel-flows-title">Cancel flows</h1>
      <h2>Flows</h2>
      <Resolved loaded={flows} what="cancel flows">
        {({ data }) => <FlowTable flows={data} onChange={flows.reload} />}
      </Resolved>
      <h2>What subscribers said</h2>
      <Resolved loaded={summary} what="cancel feedback">
        {(feedback) => <Summary {...feedback} />}
      </Resolved>
      <h2>Feedback</h2>
      <FilteredList
        path="/cancel-flows"
        filters={FILTERS}
        query={query}
        load={(values) => answer(api.GET('/v1/cancel-feedback', { params: { query: { per_page: 20, ...values } } }))}
        what="Cancel feedback"
        label="Filter feedback"
        empty="No completed cancel sessions yet."
        emptyFiltered="No feedback with this outcome."
      >
        {(items) => <FeedbackRows records={items} />}
      </FilteredList>
    </section>
  );
}

function FlowTable({ flows, onChange }: { flows: CancelFlow[]; onChange: () => void }) {
  const activate = useAction();
  const [done, setDone] = useState<string | null>(null);
  if (flows.length === 0) return <Empty>No cancel flows yet: create one with POST /v1/cancel-flows, then activate it here.</Empty>;
  const run = async (flow: CancelFlow) => {
    const activated = await activate.run(() =>
      answer(api.POST('/v1/cancel-flows/{id}/activate', { params: { path: { id: flow.id }, header: { 'Idempotency-Key': idempotencyKey() } } })),
    );
    if (activated) {
      setDone(`${flow.name} is now the active flow; the one active before is inactive.`);
      onChange();
    }
  };
  return (
    <>
      <p role="status" class="notice" aria-live="polite">
        {done}
      </p>
      {activate.error && <ErrorNotice error={activate.error} />}
      <div class="table-scroll">
        <table>
          <caption class="visually-hidden">Cancel flows</caption>
          <TableHead columns={['Name', 'Status', 'Steps', 'Allowed origins', 'Activated', 'Action']} />
          <tbody>
            {flows.map((flow) => (
              <tr>
                <td>{flow.name}</td>
                <td>
                  <Status value={flow.status} />
                </td>
                <td>{flow.steps.map((step) => step.step_type).join(' → ')}</td>
                <td>{flow.allowed_origins.join(', ') || <span class="muted">the deployment’s only</span>}</td>
                <td>
                  <Time at={flow.activated_at} />
                </td>
                <td>
                  <ActionButton
                    operation="POST /v1/cancel-flows/{id}/activate"
                    variant="secondary"
                    onClick={() => run(flow)}
                    running={activate.running}
                    blockedBecause={flow.status === 'draft' || flow.status === 'inactive' ? null : `A ${flow.status} flow cannot be activated.`}
                  >
                    Activate {flow.name}
                  </ActionButton>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** Save rate, reasons and offers over the latest completed sessions (the API keeps no cancel-flow aggregates). */
function Summary({ records, total }: { records: Feedback[]; total: number }) {
  if (records.length === 0) return <Empty>No subscriber has finished a cancel flow yet.</Empty>;
  const saved = records.filter((record) => record.outcome === 'saved').length;
  const days = Array.from({ length: CHART_DAYS }, (_, index) => new Date(Date.now() - (CHART_DAYS - 1 - index) * 86_400_000).toISOString().slice(0, 10));
  const dailyRate = days.map((day) => {
    const ofDay = records.filter((record) => record.completed_at.startsWith(day));
    return ofDay.length === 0 ? 0 : ofDay.filter((record) => record.outcome === 'saved').length / ofDay.length;
  });
  const reasons = new Map<string, { all: number; saved: number }>();
  for (const record of records) {
    const tally = reasons.get(record.reason) ?? { all: 0, saved: 0 };
    tally.all += 1;
    if (record.outcome === 'saved') tally.saved += 1;
    reasons.set(record.reason, tally);
  }
  const offers = new Map<string, { shown: number; accepted: number }>();
  for (const record of records) {
    if (!record.offer) continue;
    const tally = offers.get(record.offer.offer_type) ?? { shown: 0, accepted: 0 };
    tally.shown += 1;
    if (record.accepted_offer !== null && record.accepted_offer !== undefined) tally.accepted += 1;
    offers.set(record.offer.offer_type, tally);
  }
  return (
    <>
      <p>
        <strong class="metric" data-metric="save_rate">
          {rate(saved / records.length)}
        </strong>{' '}
        saved: {count(saved)} of the latest {count(records.length)} completed sessions{total > records.length ? ` (of ${count(total)} in all)` : ''}.
      </p>
      <div class="charts">
        <LineChart title={`Save rate per day, last ${CHART_DAYS} days`} days={days} series={[{ label: 'Saved', values: dailyRate }]} format={(value) => rate(value)} />
      </div>
      <div class="breakdowns">
        <Bars
          title="Reasons given"
          emptyText="No reasons."
          bars={[...reasons].sort((a, b) => b[1].all - a[1].all).map(([reason, tally]) => ({ label: words(reason), value: tally.all, text: `${count(tally.all)} · ${count(tally.saved)} saved` }))}
        />
        <Bars
          title="Offers accepted"
          emptyText="No offer was shown."
          bars={[...offers].map(([offer, tally]) => ({ label: words(offer), value: tally.accepted, text: `${count(tally.accepted)} of ${count(tally.shown)} shown · ${rate(tally.accepted / tally.shown)}` }))}
        />
      </div>
    </>
  );
}

function FeedbackRows({ records }: { records: Feedback[] }) {
  return (
    <>
      <TableHead columns={['Completed', 'Outcome', 'Reason', 'In their words', 'Offer', 'Subscriber']} />
      <tbody>
        {records.map((record) => (
          <tr>
            <td>
              <Time at={record.completed_at} />
            </td>
            <td>
              <Status value={record.outcome} />
            </td>
            <td>
              {words(record.reason)}
              {record.sub_reason ? ` · ${words(record.sub_reason)}` : ''}
            </td>
            <td>{record.free_text ?? <span class="muted">—</span>}</td>
            <td>
              {record.offer ? `${record.offer.headline}${record.accepted_offer ? ' (accepted)' : ' (declined)'}` : '—'}
              {record.offer_application && <div class="muted">{words(record.offer_application.status)}</div>}
            </td>
            <td>{record.customer_id ? <a href={`/dashboard/customers/${record.customer_id}`}>{record.external_customer_id}</a> : record.external_customer_id}</td>
          </tr>
        ))}
      </tbody>
    </>
  );
}
