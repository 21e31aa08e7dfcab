import { useState } from 'preact/hooks';
import { answer, api, idempotencyKey } from '../api/client.ts';
import type { components } from '../api/schema.gen.ts';
import { usePermission } from '../caller.ts';
import { Bars } from '../components/bars.tsx';
import { ActionButton } from '../components/controls.tsx';
import { RangePicker } from '../components/range-picker.tsx';
import { ErrorNotice, Resolved } from '../components/states.tsx';
import { Money, Status, Time } from '../components/values.tsx';
import { count, rate, utcDay, words } from '../format.ts';
import { useAction, useLoad } from '../load.ts';
import { href, navigate } from '../router.ts';
import { rangeFrom, type DayRange } from '../ranges.ts';
import { TableHead } from '../components/table-head.tsx';

type Campaign = components['schemas']['Campaign'];
type CampaignReport = components['schemas']['CampaignAnalytics']['campaigns'][number];

async function campaignWithReport(id: string, range: DayRange) {
  const [campaign, analytics] = await Promise.all([
    answer(api.GET('/v1/campaigns/{id}', { params: { path: { id } } })),
    answer(api.GET('/v1/analytics/campaigns', { params: { query: { from: range.from, to: range.to } } })),
  ]);
  return { campaign: campaign.data, report: analytics.data.campaigns.find((entry) => entry.campaign_id === id) ?? null };
}

export function CampaignPage({ id, query }: { id: string; query: URLSearchParams }) {
  const range = rangeFrom(query.has('days') || query.has('from') ? query : new URLSearchParams({ days: '90' }));
  const loaded = useLoad(() => campaignWithReport(id, range), `${id}/${range.from}/${range.to}`);
  return (
    <section aria-labelledby="campaign-title">
      <p>
        <a href={href('/campaigns')}>← Campaigns</a>
      </p>
      <Resolved loaded={loaded} what="the campaign">
        {({ campaign, report }) => <CampaignDetail campaign={campaign} report={report} range={range} onChange={loaded.reload} />}
      </Resolved>
    </section>
  );
}

type Transition = 'activate' | 'pause' | 'archive';

/** §3.1: which transitions a status allows, and why not otherwise. */
function blockedBecause(campaign: Campaign, transition: Transition): string | null {
  const status = words(campaign.status);
  if (transition === 'activate') return campaign.status === 'draft' || campaign.status === 'paused' ? null : `Only a draft or paused campaign can be activated; this one is ${status}.`;
  if (transition === 'pause') return campaign.status === 'active' ? null : `Only an active campaign can be paused; this one is ${status}.`;
  return campaign.status === 'archived' ? 'This campaign is already archived.' : null;
}

function CampaignDetail({ campaign, report, range, onChange }: { campaign: Campaign; report: CampaignReport | null; range: DayRange; onChange: () => void }) {
  const action = useAction();
  const [done, setDone] = useState<string | null>(null);
  const edit = usePermission('PUT /v1/campaigns/{id}');
  const transition = async (name: Transition) => {
    const options = { params: { path: { id: campaign.id }, header: { 'Idempotency-Key': idempotencyKey() } } };
    const request: Promise<{ data?: unknown; error?: unknown; response: Response }> =
      name === 'activate'
        ? api.POST('/v1/campaigns/{id}/activate', options)
        : name === 'pause'
          ? api.POST('/v1/campaigns/{id}/pause', options)
          : api.POST('/v1/campaigns/{id}/archive', options);
    if (await action.run(() => answer(request))) {
      setDone(`Campaign ${name === 'activate' ? 'activated' : name === 'pause' ? 'paused' : 'archived'}.`);
      onChange();
    }
  };
  const remove = async () => {
    if (await action.run(() => answer(api.DELETE('/v1/campaigns/{id}', { params: { path: { id: campaign.id } } })))) navigate(href('/campaigns'));
  };
  return (
    <>
      <div class="page-head">
        <h1 id="campaign-title">
          {campaign.name} <Status value={campaign.status} />
        </h1>
        <div class="actions">
          <ActionButton operation="POST /v1/campaigns/{id}/activate" onClick={() => transition('activate')} running={action.running} blockedBecause={blockedBecause(campaign, 'activate')}>
            Activate
          </ActionButton>
          <ActionButton operation="POST /v1/campaigns/{id}/pause" variant="secondary" onClick={() => transition('pause')} running={action.running} blockedBecause={blockedBecause(campaign, 'pause')}>
            Pause
          </ActionButton>
          <ActionButton operation="POST /v1/campaigns/{id}/archive" variant="secondary" onClick={() => transition('archive')} running={action.running} blockedBecause={blockedBecause(campaign, 'archive')}>
            Archive
          </ActionButton>
          {campaign.status === 'draft' && (
            <ActionButton operation="DELETE /v1/campaigns/{id}" variant="danger" onClick={remove} running={action.running}>
              Delete draft
            </ActionButton>
          )}
          {edit.allowed && campaign.status !== 'archived' ? <a href={href(`/campaigns/${campaign.id}/edit`)}>Edit</a> : <span class="reason">Edit: {edit.reason ?? 'an archived campaign cannot change.'}</span>}
        </div>
      </div>
      <p role="status" class="notice" aria-live="polite">
        {done}
      </p>
      {action.error && <ErrorNotice error={action.error} />}
      {campaign.description && <p>{campaign.description}</p>}
      <dl class="facts">
        <dt>Trigger</dt>
        <dd>
          {words(campaign.trigger)}
          {campaign.trigger_conditions.decline_categories.length > 0 && ` · ${campaign.trigger_conditions.decline_categories.map(words).join(', ')}`}
        </dd>
        <dt>Enrolled</dt>
        <dd>
          {count(campaign.stats.enrolled_count)} ({count(campaign.stats.active_count)} in the sequence now)
        </dd>
        <dt>Recovered</dt>
        <dd>
          {count(campaign.stats.recovered_count)} · {rate(campaign.stats.recovery_rate)}
          {campaign.stats.currency && (
            <>
              {' · '}
              <Money amount={campaign.stats.total_recovered_amount} currency={campaign.stats.currency} />
            </>
          )}
        </dd>
        <dt>Stops</dt>
        <dd>
          after {campaign.stop_conditions.max_attempts} messages
          {campaign.stop_conditions.stop_on_recovery && ', on recovery'}
          {campaign.stop_conditions.stop_on_terminal && ', on a terminal decline'}
          {campaign.stop_conditions.stop_on_card_update && ', on a card update'}
        </dd>
        <dt>Quiet hours</dt>
        <dd>{campaign.quiet_hours.enabled ? `${campaign.quiet_hours.start_hour}:00–${campaign.quiet_hours.end_hour}:00 ${campaign.quiet_hours.timezone}` : 'off'}</dd>
        <dt>Activated</dt>
        <dd>
          <Time at={campaign.activated_at} />
        </dd>
      </dl>

      <div class="page-head">
        <h2>Steps and their funnel</h2>
        <RangePicker key={`${range.from}/${range.to}`} range={range} path={`/campaigns/${campaign.id}`} />
      </div>
      <p class="muted">
        Customers enrolled {utcDay(range.from)} to {utcDay(range.to)} (UTC): {count(report?.enrolled_count ?? 0)} enrolled, {count(report?.messages_sent.total ?? 0)} messages sent,{' '}
        {count(report?.recovered_count ?? 0)} recovered ({rate(report?.recovery_rate ?? 0)}); {count(report?.recovered_before_first_message ?? 0)} recovered before their first message.
      </p>
      <StepFunnel campaign={campaign} report={report} />
    </>
  );
}

/** Each step with what it sent and the recoveries credited to it (the last step sent before a recovery). */
function StepFunnel({ campaign, report }: { campaign: Campaign; report: CampaignReport | null }) {
  const stepReport = (index: number) => report?.steps.find((step) => step.step === index);
  return (
    <div class="step-funnel">
      <div class="table-scroll">
        <table>
          <caption class="visually-hidden">Steps</caption>
          <TableHead columns={['Step', 'Channel', 'Message', 'Delay', 'Sent', 'Recoveries', 'Conversion']} />
          <tbody>
            {campaign.steps.map((step) => (
              <tr>
                <th scope="row">{step.index + 1}</th>
                <td>{step.channel}</td>
                <td>
                  {step.subject ?? '—'} <span class="muted">({step.template_id})</span>
                </td>
                <td>
                  {step.delay_hours} h after {words(step.delay_from)}
                </td>
                <td data-step-metric="messages_sent">{count(stepReport(step.index)?.messages_sent ?? 0)}</td>
                <td data-step-metric="recovered_count">{count(stepReport(step.index)?.recovered_count ?? 0)}</td>
                <td>{rate(stepReport(step.index)?.conversion_rate ?? 0)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div class="breakdowns">
        <Bars
          title="Messages sent per step"
          emptyText="No messages sent in this period."
          bars={campaign.steps.map((step) => ({ label: `Step ${step.index + 1} (${step.channel})`, value: stepReport(step.index)?.messages_sent ?? 0, text: count(stepReport(step.index)?.messages_sent ?? 0) }))}
        />
        <Bars
          title="Recoveries per step"
          emptyText="No recoveries credited in this period."
          bars={campaign.steps.map((step) => ({
            label: `Step ${step.index + 1} (${step.channel})`,
            value: stepReport(step.index)?.recovered_count ?? 0,
            text: `${count(stepReport(step.index)?.recovered_count ?? 0)} · ${rate(stepReport(step.index)?.conversion_rate ?? 0)} of sent`,
          }))}
        />
      </div>
    </div>
  );
}
