import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ALLOWED_FROM,
  CAMPAIGN_STATUSES,
  CAMPAIGN_TRIGGERS,
  canApply,
  checkDefinition,
  countsChange,
  DEFAULT_QUIET_HOURS,
  DEFAULT_STOP_CONDITIONS,
  DEFAULT_TRIGGER_CONDITIONS,
  EMPTY_COUNTERS,
  isIanaTimeZone,
  newDefinition,
  refusal,
  selectCampaigns,
  STATUS_AFTER,
  updatedDefinition,
  type Campaign,
  type CampaignAction,
  type CampaignDefinition,
  type CampaignStatus,
  type CampaignStep,
} from '../../shared/model/campaign.ts';
import { ServiceError } from '../../shared/model/errors.ts';
import { createCampaignBody, updateCampaignBody } from '../../shared/http/campaign-schemas.ts';
import { parseInput } from '../../shared/http/parse.ts';

const ACTIONS: CampaignAction[] = ['update', 'activate', 'pause', 'archive', 'delete'];

const emailStep = fc.record({
  channel: fc.constant('email' as const),
  template_id: fc.stringMatching(/^tpl_[a-z0-9_]{1,20}$/),
  subject: fc.string({ minLength: 1, maxLength: 50 }).filter((s) => s.trim() !== ''),
  delay_hours: fc.integer({ min: 0, max: 8760 }),
});
const smsStep = fc.record({
  channel: fc.constant('sms' as const),
  template_id: fc.stringMatching(/^tpl_[a-z0-9_]{1,20}$/),
  delay_hours: fc.integer({ min: 0, max: 8760 }),
});
const validSteps = fc.array(fc.oneof(emailStep, smsStep), { minLength: 1, maxLength: 20 });

const definition = (steps: CampaignStep[]): CampaignDefinition => ({
  name: 'n',
  description: '',
  trigger: 'payment_failed',
  trigger_conditions: DEFAULT_TRIGGER_CONDITIONS,
  steps,
  stop_conditions: DEFAULT_STOP_CONDITIONS,
  quiet_hours: DEFAULT_QUIET_HOURS,
});

const smsOnly = definition([{ channel: 'sms', template_id: 'tpl_a', delay_hours: 0 }]);

/** A stored campaign with the given fields, the rest neutral. */
function stored(fields: Partial<Campaign> & Pick<Campaign, 'id' | 'status' | 'created_at'>): Campaign {
  const base = { ...definition([]), ...EMPTY_COUNTERS, version: 1, activated_at: null, paused_at: null, archived_at: null };
  return { ...base, updated_at: fields.created_at, ...fields };
}

/** One of the values, or undefined (no filter). */
const anyOf = <T,>(values: readonly T[]) => fc.option(fc.constantFrom(...values), { nil: undefined });

function failure(run: () => unknown): ServiceError | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
}

describe('campaign lifecycle rules (§3.1)', () => {
  it('allows exactly the documented transitions', () => {
    const table: Record<CampaignAction, CampaignStatus[]> = {
      update: ['draft', 'active', 'paused'],
      activate: ['draft', 'paused'],
      pause: ['active'],
      archive: ['draft', 'active', 'paused'],
      delete: ['draft'],
    };
    expect(ALLOWED_FROM).toEqual(table);
    expect(STATUS_AFTER).toEqual({ activate: 'active', pause: 'paused', archive: 'archived' });
    for (const action of ACTIONS) expect(canApply(action, 'archived')).toBe(false);
  });

  it('refuses with a message naming the campaign and its status exactly when not allowed (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ACTIONS), fc.constantFrom(...CAMPAIGN_STATUSES), fc.stringMatching(/^cmp_[0-9a-z]{26}$/), (action, status, id) => {
        const message = refusal(action, { id, status });
        expect(message === undefined).toBe(canApply(action, status));
        if (message !== undefined) {
          expect(message).toContain(`Campaign '${id}'`);
          expect(message).toContain(`its status is '${status}'`);
        }
      }),
    );
  });

  it('keeps the plan counts equal to the campaigns through any sequence of operations (property)', () => {
    type Op = { kind: 'create' } | { kind: CampaignAction; target: number };
    const op = fc.oneof(
      fc.constant<Op>({ kind: 'create' }),
      fc.record({ kind: fc.constantFrom<CampaignAction>('activate', 'pause', 'archive', 'delete'), target: fc.nat(20) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const statuses: (CampaignStatus | 'none')[] = [];
        const counts = { open: 0, active: 0 };
        const apply = (from: CampaignStatus | 'none', to: CampaignStatus | 'none') => {
          const change = countsChange(from, to);
          counts.open += change.open;
          counts.active += change.active;
        };
        for (const next of ops) {
          if (next.kind === 'create') {
            statuses.push('draft');
            apply('none', 'draft');
            continue;
          }
          if (!('target' in next) || statuses.length === 0) continue;
          const index = next.target % statuses.length;
          const from = statuses[index]!;
          if (from === 'none' || !canApply(next.kind, from)) continue;
          const to = next.kind === 'delete' ? 'none' : STATUS_AFTER[next.kind as 'activate' | 'pause' | 'archive'];
          statuses[index] = to;
          apply(from, to);
        }
        expect(counts).toEqual({
          open: statuses.filter((s) => s !== 'none' && s !== 'archived').length,
          active: statuses.filter((s) => s === 'active').length,
        });
      }),
    );
  });
});

describe('campaign definition rules', () => {
  it('accepts any steps with an email subject where needed and none on sms (property)', () => {
    fc.assert(
      fc.property(validSteps, (steps) => {
        expect(failure(() => checkDefinition(definition(steps)))).toBeUndefined();
      }),
    );
  });

  it('names the first email step without a subject, or sms step with one, as 422 (property)', () => {
    fc.assert(
      fc.property(validSteps, fc.nat(), (steps, pick) => {
        const index = pick % steps.length;
        const broken = steps.map((step, i) => {
          if (i !== index) return step;
          if (step.channel === 'email') {
            const { subject: _subject, ...rest } = step as CampaignStep;
            return rest;
          }
          return { ...step, subject: 'Hello' };
        }) as CampaignStep[];
        const error = failure(() => checkDefinition(definition(broken)));
        expect(error?.code).toBe('validation_error');
        expect(error?.param).toBe(`steps.${index}.subject`);
      }),
    );
  });

  it('refuses min_amount above max_amount, and only that (property)', () => {
    const amount = fc.option(fc.nat(), { nil: null });
    fc.assert(
      fc.property(amount, amount, (min, max) => {
        const error = failure(() =>
          checkDefinition({ ...smsOnly, trigger_conditions: { decline_categories: [], min_amount: min, max_amount: max } }),
        );
        const refused = min !== null && max !== null && min > max;
        expect(error?.param).toBe(refused ? 'trigger_conditions.max_amount' : undefined);
      }),
    );
  });

  it('refuses an enabled quiet window that starts when it ends, accepts wrapping ones and any hours of one that is off (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 23 }), fc.boolean(), (start, end, enabled) => {
        const error = failure(() =>
          checkDefinition({ ...smsOnly, quiet_hours: { enabled, start_hour: start, end_hour: end, timezone: 'UTC' } }),
        );
        expect(error?.param).toBe(enabled && start === end ? 'quiet_hours.end_hour' : undefined);
      }),
    );
  });

  it('keeps the hours of a window that is off as sent, and checks them when an update enables it', () => {
    const steps: CampaignStep[] = [{ channel: 'sms', template_id: 'tpl_a', delay_hours: 1 }];
    const off = { enabled: false, start_hour: 0, end_hour: 0, timezone: 'UTC' };
    const created = newDefinition({ name: 'x', trigger: 'manual', steps, quiet_hours: off });
    expect(created.quiet_hours).toEqual(off);
    expect(updatedDefinition(created, { quiet_hours: { start_hour: 5, end_hour: 5 } }).quiet_hours).toEqual({ ...off, start_hour: 5, end_hour: 5 });
    expect(failure(() => updatedDefinition(created, { quiet_hours: { enabled: true } }))?.param).toBe('quiet_hours.end_hour');
    expect(updatedDefinition(created, { quiet_hours: { enabled: true, end_hour: 6 } }).quiet_hours).toEqual({ ...off, enabled: true, end_hour: 6 });
  });

  it('fills defaults on create', () => {
    const steps: CampaignStep[] = [{ channel: 'sms', template_id: 'tpl_a', delay_hours: 1 }];
    const created = newDefinition({ name: 'x', trigger: 'manual', steps, quiet_hours: { enabled: true } });
    expect(created).toEqual({
      name: 'x',
      description: '',
      trigger: 'manual',
      trigger_conditions: { decline_categories: [], min_amount: null, max_amount: null },
      steps: [{ channel: 'sms', template_id: 'tpl_a', delay_hours: 1 }],
      stop_conditions: { max_attempts: 20, stop_on_recovery: true, stop_on_terminal: true, stop_on_card_update: true },
      quiet_hours: { enabled: true, start_hour: 21, end_hour: 8, timezone: 'UTC' },
    });
  });

  it('updates only what is sent: scalars and steps replace, nested objects merge (property)', () => {
    fc.assert(
      fc.property(validSteps, fc.option(validSteps, { nil: undefined }), fc.option(fc.boolean(), { nil: undefined }), (steps, newSteps, enabled) => {
        const current = definition(steps);
        const change = { ...(newSteps ? { steps: newSteps } : {}), ...(enabled === undefined ? {} : { quiet_hours: { enabled } }) };
        const next = updatedDefinition(current, change);
        expect(next.steps).toEqual(newSteps ?? steps);
        expect(next.quiet_hours).toEqual({ ...current.quiet_hours, enabled: enabled ?? current.quiet_hours.enabled });
        expect({ ...next, steps: current.steps, quiet_hours: current.quiet_hours }).toEqual(current);
      }),
    );
  });
});

describe('campaign request schemas', () => {
  const base = { name: 'n', trigger: 'manual', steps: [{ channel: 'sms', template_id: 'tpl_a', delay_hours: 0 }] };

  it('accepts delay_hours exactly when it is an integer from 0 to 8760 (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -20_000, max: 20_000 }), fc.double({ noNaN: true })), (delay) => {
        const body = { ...base, steps: [{ ...base.steps[0], delay_hours: delay }] };
        const error = failure(() => parseInput(createCampaignBody, body, 'body'));
        const valid = Number.isInteger(delay) && delay >= 0 && delay <= 8760;
        if (valid) expect(error).toBeUndefined();
        else expect(error).toMatchObject({ code: 'validation_error', param: 'steps.0.delay_hours' });
      }),
    );
  });

  it('tells a missing required field (400) from an invalid one (422)', () => {
    expect(failure(() => parseInput(createCampaignBody, { trigger: 'manual', steps: base.steps }, 'body'))).toMatchObject({ code: 'invalid_request', param: 'name' });
    expect(failure(() => parseInput(createCampaignBody, { ...base, trigger: 'never' }, 'body'))).toMatchObject({ code: 'validation_error', param: 'trigger' });
    expect(failure(() => parseInput(updateCampaignBody, { extra: 1 }, 'body'))).toMatchObject({ code: 'invalid_request', param: 'extra' });
    expect(parseInput(updateCampaignBody, { name: 'only' }, 'body')).toEqual({ name: 'only' });
  });

  it('accepts every trigger type and refuses anything else (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...CAMPAIGN_TRIGGERS), fc.string()), (trigger) => {
        const error = failure(() => parseInput(createCampaignBody, { ...base, trigger }, 'body'));
        expect(error === undefined).toBe((CAMPAIGN_TRIGGERS as readonly string[]).includes(trigger));
      }),
    );
  });

  it('knows every IANA zone of the runtime and no UTC offsets', () => {
    for (const zone of Intl.supportedValuesOf('timeZone')) expect(isIanaTimeZone(zone), zone).toBe(true);
    for (const zone of ['UTC', 'Etc/GMT+5', 'America/Argentina/Buenos_Aires']) expect(isIanaTimeZone(zone), zone).toBe(true);
    for (const zone of ['+01:00', 'UTC+1', 'Mars/Olympus', '', 'Europe/', '../etc']) expect(isIanaTimeZone(zone), zone).toBe(false);
  });
});

describe('campaign list ordering', () => {
  const campaign = fc.record({
    id: fc.uuid(),
    name: fc.string({ maxLength: 8 }),
    status: fc.constantFrom(...CAMPAIGN_STATUSES),
    trigger: fc.constantFrom(...CAMPAIGN_TRIGGERS),
    created_at: fc.integer({ min: 0, max: 1000 }).map((s) => new Date(1_700_000_000_000 + s * 1000).toISOString()),
  });
  const campaigns = fc.uniqueArray(campaign, { selector: (c) => c.id, maxLength: 40 }).map((items) =>
    items.map((item) => stored({ ...item, updated_at: item.created_at })),
  );

  it('orders descending as the exact reverse of ascending, for every sort (property)', () => {
    fc.assert(
      fc.property(campaigns, fc.constantFrom('created_at' as const, 'name' as const, 'status' as const), (items, sort) => {
        const asc = selectCampaigns(items, {}, sort, 'asc');
        expect(selectCampaigns(items, {}, sort, 'desc')).toEqual([...asc].reverse());
        expect(new Set(asc.map((c) => c.id))).toEqual(new Set(items.map((c) => c.id)));
      }),
    );
  });

  it('keeps exactly the campaigns matching the filter (property)', () => {
    fc.assert(
      fc.property(campaigns, anyOf(CAMPAIGN_STATUSES), anyOf(CAMPAIGN_TRIGGERS), (items, status, trigger) => {
        const selected = selectCampaigns(items, { status, trigger }, 'created_at', 'desc');
        const expected = items.filter((c) => (status === undefined || c.status === status) && (trigger === undefined || c.trigger === trigger));
        expect(selected.map((c) => c.id).sort()).toEqual(expected.map((c) => c.id).sort());
      }),
    );
  });

  it('sorts status by lifecycle, not alphabet', () => {
    const items = (['archived', 'paused', 'active', 'draft'] as const).map(
      (status, i) => stored({ id: `c${i}`, status, created_at: '2026-01-01T00:00:00.000Z' }),
    );
    expect(selectCampaigns(items, {}, 'status', 'asc').map((c) => c.status)).toEqual(['draft', 'active', 'paused', 'archived']);
  });
});
