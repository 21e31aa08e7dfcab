import { answer, api } from '../api/client.ts';
import type { components } from '../api/schema.gen.ts';
import { Bars } from '../components/bars.tsx';
import { LineChart } from '../components/line-chart.tsx';
import { Empty, Resolved } from '../components/states.tsx';
import { Money } from '../components/values.tsx';
import { count, money, rate, utcDay, words } from '../format.ts';
import { useLoad } from '../load.ts';
import { href } from '../router.ts';
import { previousRange, rangeFrom, type DayRange } from '../ranges.ts';
import { RangePicker } from '../components/range-picker.tsx';

type Recovery = components['schemas']['RecoveryAnalytics'];
type CurrencyReport = Recovery['currencies'][number];

const recovery = async (range: DayRange): Promise<Recovery> =>
  (await answer(api.GET('/v1/analytics/recovery', { params: { query: { from: range.from, to: range.to, interval: 'day' } } }))).data;

/**
 * The overview: recovered revenue and recovery rate of a range against the period before it, what
 * recovered it, the funnel, and what is still open. Every number is GET /v1/analytics/recovery's.
 */
export function Overview({ query }: { query: URLSearchParams }) {
  const range = rangeFrom(query);
  const previous = previousRange(range);
  const loaded = useLoad(() => Promise.all([recovery(range), recovery(previous)]), `${range.from}/${range.to}`);
  return (
    <section aria-labelledby="overview-title">
      <div class="page-head">
        <h1 id="overview-title">Overview</h1>
        <RangePicker range={range} path="/" />
      </div>
      <p class="muted">
        Failures of {utcDay(range.from)} to {utcDay(range.to)} (UTC days) and what became of them so far, against {utcDay(previous.from)} to {utcDay(previous.to)}.
      </p>
      <Resolved loaded={loaded} what="recovery analytics">
        {([current, before]) => <Report current={current} before={before} chosen={query.get('currency')} range={range} />}
      </Resolved>
    </section>
  );
}

/** The change against the previous period, in words (never colour alone). */
function Change({ now, then, kind }: { now: number; then: number; kind: 'relative' | 'points' }) {
  if (kind === 'points') {
    const points = Math.round((now - then) * 1000) / 10;
    return <span class="change">{points === 0 ? 'no change' : `${points > 0 ? 'up' : 'down'} ${Math.abs(points)} points`} on the previous period</span>;
  }
  if (then === 0) return <span class="change">{now === 0 ? 'none in the previous period either' : 'none in the previous period'}</span>;
  const change = (now - then) / then;
  return <span class="change">{change === 0 ? 'no change' : `${change > 0 ? 'up' : 'down'} ${rate(Math.abs(change))}`} on the previous period</span>;
}

function Report({ current, before, chosen, range }: { current: Recovery; before: Recovery; chosen: string | null; range: DayRange }) {
  if (current.totals.failed_count === 0 && before.totals.failed_count === 0) {
    return (
      <Empty>
        <p>No failed payments in this period or the one before it.</p>
        <p class="muted">Failures appear here once a connected processor reports them (Developers → Processors has the webhook URL).</p>
      </Empty>
    );
  }
  const currencies = current.currencies.length > 0 ? current.currencies : before.currencies;
  const largest = [...currencies].sort((a, b) => b.failed.count - a.failed.count)[0]!;
  const selected = currencies.find((report) => report.currency === chosen) ?? largest;
  const previousOf = (currency: string) => before.currencies.find((report) => report.currency === currency);
  return (
    <>
      <div class="cards">
        <article class="card" aria-labelledby="recovered-title">
          <h2 id="recovered-title">Recovered revenue</h2>
          {current.currencies.length === 0 && <p class="muted">Nothing failed in this period.</p>}
          <ul class="plain">
            {current.currencies.map((report) => (
              <li>
                <strong class="metric" data-metric="recovered_amount" data-currency={report.currency} data-value={report.recovered.amount}>
                  {money(report.recovered.amount, report.currency)}
                </strong>{' '}
                <Change now={report.recovered.amount} then={previousOf(report.currency)?.recovered.amount ?? 0} kind="relative" />
              </li>
            ))}
          </ul>
        </article>
        <article class="card" aria-labelledby="rate-title">
          <h2 id="rate-title">Recovery rate</h2>
          <strong class="metric" data-metric="recovery_rate" data-value={current.totals.recovery_rate}>
            {rate(current.totals.recovery_rate)}
          </strong>{' '}
          <Change now={current.totals.recovery_rate} then={before.totals.recovery_rate} kind="points" />
          <p class="muted">
            {count(current.totals.recovered_count)} of {count(current.totals.failed_count)} failed payments recovered
          </p>
        </article>
        <article class="card" aria-labelledby="open-title">
          <h2 id="open-title">Open failures waiting</h2>
          {current.currencies.every((report) => report.pending.count === 0) ? (
            <p class="muted">None: every failure of this period was recovered or ended.</p>
          ) : (
            <ul class="plain">
              {current.currencies
                .filter((report) => report.pending.count > 0)
                .map((report) => (
                  <li data-metric="pending" data-currency={report.currency}>
                    <a href={href('/payments', { currency: report.currency, created_after: `${range.from}T00:00:00Z` })}>
                      {count(report.pending.count)} {report.pending.count === 1 ? 'payment' : 'payments'}, <Money amount={report.pending.amount} currency={report.currency} />
                    </a>
                  </li>
                ))}
            </ul>
          )}
        </article>
      </div>

      {currencies.length > 1 && <CurrencyPicker currencies={currencies} selected={selected.currency} />}

      <div class="charts">
        <LineChart
          title={`Recovered revenue per day (${selected.currency.toUpperCase()})`}
          days={daysOf(current)}
          series={[
            { label: 'This period', values: seriesOf(current, selected.currency).map((point) => point.recovered_amount) },
            { label: 'Previous period', values: seriesOf(before, selected.currency).map((point) => point.recovered_amount), dashed: true },
          ]}
          format={(value) => money(Math.round(value), selected.currency)}
        />
        <LineChart
          title="Recovery rate per day (all currencies)"
          days={dailyRates(current).map((point) => point.day)}
          series={[
            { label: 'This period', values: dailyRates(current).map((point) => point.rate) },
            { label: 'Previous period', values: dailyRates(before).map((point) => point.rate), dashed: true },
          ]}
          format={(value) => rate(value)}
        />
      </div>

      <h2>What recovered it ({selected.currency.toUpperCase()})</h2>
      <div class="breakdowns">
        <Bars
          title="By channel"
          emptyText="Nothing recovered yet."
          bars={Object.entries(selected.by_channel).map(([channel, tally]) => ({
            label: words(channel),
            value: tally.amount,
            text: `${money(tally.amount, selected.currency)} · ${count(tally.count)}`,
          }))}
        />
        <Bars
          title="By decline category"
          emptyText="No failures."
          bars={Object.entries(selected.by_category).map(([category, tally]) => ({
            label: words(category),
            value: tally.recovered_amount,
            text: `${money(tally.recovered_amount, selected.currency)} of ${money(tally.failed_amount, selected.currency)} · ${rate(tally.recovery_rate)}`,
          }))}
        />
        <Bars
          title="By processor"
          emptyText="No failures."
          bars={Object.entries(selected.by_psp).map(([psp, tally]) => ({
            label: psp,
            value: tally.recovered_amount,
            text: `${money(tally.recovered_amount, selected.currency)} of ${money(tally.failed_amount, selected.currency)} · ${rate(tally.recovery_rate)}`,
          }))}
        />
      </div>

      <h2>Funnel (all currencies)</h2>
      <Funnel totals={current.totals} />
    </>
  );
}

function CurrencyPicker({ currencies, selected }: { currencies: CurrencyReport[]; selected: string }) {
  return (
    <nav aria-label="Currency of the charts and breakdowns">
      <ul class="segmented">
        {currencies.map((report) => (
          <li>
            <a href={`${location.pathname}?${withParam('currency', report.currency)}`} aria-current={report.currency === selected ? 'true' : undefined}>
              {report.currency.toUpperCase()}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

const withParam = (name: string, value: string): string => {
  const query = new URLSearchParams(location.search);
  query.set(name, value);
  return query.toString();
};

function Funnel({ totals }: { totals: Recovery['totals'] }) {
  const share = (value: number) => (totals.failed_count === 0 ? '' : ` · ${rate(value / totals.failed_count)} of failed`);
  const stages = [
    { label: 'Failed', value: totals.failed_count },
    { label: 'Retried', value: totals.retried_count },
    { label: 'Messaged', value: totals.messaged_count },
    { label: 'Recovered', value: totals.recovered_count },
    { label: 'Terminal', value: totals.terminal_count },
  ];
  return (
    <div class="funnel" data-metric="funnel">
      <Bars title="Failed → retried → messaged → recovered / terminal" emptyText="No failures." bars={stages.map((stage) => ({ ...stage, text: `${count(stage.value)}${share(stage.value)}` }))} />
    </div>
  );
}

const seriesOf = (report: Recovery, currency: string) =>
  report.currencies.find((entry) => entry.currency === currency)?.series ?? daysOf(report).map((day) => ({ period_start: day, recovered_amount: 0 }));

/** Every UTC day of the report's window: the series are zero-filled by the API, but a report without currencies has none. */
function daysOf(report: Recovery): string[] {
  const days: string[] = [];
  for (let at = Date.parse(`${report.from}T00:00:00Z`); at <= Date.parse(`${report.to}T00:00:00Z`); at += 86_400_000) days.push(new Date(at).toISOString().slice(0, 10));
  return days;
}

/** Counts add up across currencies (amounts never do): the day's recovery rate over every currency. */
function dailyRates(report: Recovery): { day: string; rate: number }[] {
  return daysOf(report).map((day, index) => {
    let failed = 0;
    let recovered = 0;
    for (const entry of report.currencies) {
      failed += entry.series[index]?.failed_count ?? 0;
      recovered += entry.series[index]?.recovered_count ?? 0;
    }
    return { day, rate: failed === 0 ? 0 : recovered / failed };
  });
}
