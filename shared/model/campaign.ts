import { validationFailed } from './errors.ts';
import type { DeclineCategory } from './payment.ts';

/**
 * Dunning campaigns (§2.2, §3.1): the definition a merchant edits, its lifecycle, and the rules both
 * obey. Everything here is pure; the operations that read and write campaigns are in
 * campaign-lifecycle.ts. Stored and served in the spec's own field names.
 */
export const CAMPAIGN_STATUSES = ['draft', 'active', 'paused', 'archived'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const CAMPAIGN_TRIGGERS = [
  'payment_failed',
  'card_expiring',
  'card_expired',
  'soft_decline',
  'repeated_failure',
  'high_value_churn',
  'pre_dunning',
  'manual',
  'any_decline',
] as const;
export type CampaignTrigger = (typeof CAMPAIGN_TRIGGERS)[number];

/** The calendar triggers (§2.2): enrolled by the daily calendar scan, not by failures (domain/dunning/calendar-triggers.ts). */
export const CALENDAR_TRIGGERS = ['card_expiring', 'pre_dunning'] as const satisfies readonly CampaignTrigger[];
export type CalendarTrigger = (typeof CALENDAR_TRIGGERS)[number];

export const isCalendarTrigger = (trigger: CampaignTrigger): trigger is CalendarTrigger => (CALENDAR_TRIGGERS as readonly string[]).includes(trigger);

export const CAMPAIGN_CHANNELS = ['email', 'sms'] as const;
export type CampaignChannel = (typeof CAMPAIGN_CHANNELS)[number];

export const TRIGGER_DECLINE_CATEGORIES = ['soft_retry', 'hard_customer', 'terminal', 'unknown'] as const satisfies readonly DeclineCategory[];

/** Size limits the spec leaves open (§8 "not shown"); argued in docs/decisions.md. */
export const CAMPAIGN_LIMITS = {
  nameLength: 100,
  descriptionLength: 1000,
  subjectLength: 200,
  templateIdLength: 64,
  steps: 20,
  /** One year: a dunning step further out than that is a mistake, not a plan. */
  delayHours: 8760,
} as const;

/** `tpl_` then lowercase letters, digits and underscores; built-in template ids come with the engine. */
export const TEMPLATE_ID_PATTERN = /^tpl_[a-z0-9_]+$/;

export interface CampaignStep {
  channel: CampaignChannel;
  template_id: string;
  /** Email steps only. */
  subject?: string;
  delay_hours: number;
}

export interface TriggerConditions {
  /** Empty: failures of every category match. */
  decline_categories: DeclineCategory[];
  min_amount: number | null;
  max_amount: number | null;
}

export interface StopConditions {
  max_attempts: number;
  stop_on_recovery: boolean;
  stop_on_terminal: boolean;
  stop_on_card_update: boolean;
}

export interface QuietHours {
  enabled: boolean;
  start_hour: number;
  end_hour: number;
  timezone: string;
}

/** What a merchant configures; every version of it is kept, since enrollments keep the one they joined (§3.1). */
export interface CampaignDefinition {
  name: string;
  description: string;
  trigger: CampaignTrigger;
  trigger_conditions: TriggerConditions;
  steps: CampaignStep[];
  stop_conditions: StopConditions;
  quiet_hours: QuietHours;
}

/** Outcome counters, maintained by the dunning engine as enrollments progress (never recomputed by scanning). */
/** A definition exactly as it was at one version; written once, never changed. */
export interface CampaignVersion extends CampaignDefinition {
  campaign_id: string;
  version: number;
  /** When this version was saved (the campaign's creation for version 1). */
  created_at: string;
}

export interface CampaignCounters {
  enrolled_count: number;
  recovered_count: number;
  terminal_count: number;
  /** Enrollments still running. */
  active_count: number;
  /**
   * Enrollments that ended, by how. Absent on campaigns from before they were kept: there, with
   * active_count they no longer add up to enrolled_count, and lists count the index instead.
   */
  completed_count?: number;
  stopped_count?: number;
  removed_count?: number;
  /**
   * Enrollments deleted with their customer's erasure: still in enrolled_count (they happened), no
   * longer in any status count or list. Absent until the first.
   */
  erased_count?: number;
  /** Recovered amounts per currency: amounts are never summed across currencies. */
  recovered_amounts: Record<string, number>;
  /** The currency stats report: that of the campaign's first recovery; null until there is one. */
  primary_currency: string | null;
}

export interface Campaign extends CampaignDefinition, CampaignCounters {
  id: string;
  status: CampaignStatus;
  /** Definition version: 1 at creation, +1 on every update. */
  version: number;
  created_at: string;
  updated_at: string;
  activated_at: string | null;
  paused_at: string | null;
  archived_at: string | null;
}

/** A request's definition fields: create supplies the required ones, update any subset (§4.1). */
export interface DefinitionInput {
  name?: string;
  description?: string;
  trigger?: CampaignTrigger;
  trigger_conditions?: Partial<TriggerConditions>;
  steps?: CampaignStep[];
  stop_conditions?: Partial<StopConditions>;
  quiet_hours?: Partial<QuietHours>;
}

export const DEFAULT_TRIGGER_CONDITIONS: TriggerConditions = { decline_categories: [], min_amount: null, max_amount: null };

/** By default every step may go out, and the sequence ends once it has no reason to continue. */
export const DEFAULT_STOP_CONDITIONS: StopConditions = {
  max_attempts: CAMPAIGN_LIMITS.steps,
  stop_on_recovery: true,
  stop_on_terminal: true,
  stop_on_card_update: true,
};

export const DEFAULT_QUIET_HOURS: QuietHours = { enabled: false, start_hour: 21, end_hour: 8, timezone: 'UTC' };

export const EMPTY_COUNTERS: CampaignCounters = {
  enrolled_count: 0,
  recovered_count: 0,
  terminal_count: 0,
  active_count: 0,
  completed_count: 0,
  stopped_count: 0,
  removed_count: 0,
  recovered_amounts: {},
  primary_currency: null,
};

/** An IANA zone name (`Europe/Paris`, `UTC`, `Etc/GMT+5`) the runtime knows; offsets like `+01:00` are not zones. */
export function isIanaTimeZone(value: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/**
 * The rules no single field can check; each failure is a 422 naming the field to fix (docs/decisions.md:
 * a conditionally required field, such as an email step's subject, failed validation rather than being missing).
 */
export function checkDefinition(definition: CampaignDefinition): void {
  definition.steps.forEach((step, index) => {
    if (step.channel === 'email' && step.subject === undefined) {
      throw validationFailed(`Invalid steps.${index}.subject: email steps need a subject`, `steps.${index}.subject`);
    }
    if (step.channel === 'sms' && step.subject !== undefined) {
      throw validationFailed(`Invalid steps.${index}.subject: sms steps have no subject; remove it`, `steps.${index}.subject`);
    }
  });
  const { min_amount: min, max_amount: max } = definition.trigger_conditions;
  if (min !== null && max !== null && min > max) {
    throw validationFailed(
      `Invalid trigger_conditions.max_amount: must be greater than or equal to min_amount (${min})`,
      'trigger_conditions.max_amount',
    );
  }
  // A window that is off is no window: its hours are kept as sent (they apply once it is enabled, then checked).
  const { enabled, start_hour: start, end_hour: end } = definition.quiet_hours;
  if (enabled && start === end) {
    throw validationFailed(
      'Invalid quiet_hours.end_hour: must differ from start_hour (a window of zero or 24 hours is ambiguous)',
      'quiet_hours.end_hour',
    );
  }
}

/** A new campaign's definition: the request with defaults filled in, checked as a whole. */
export function newDefinition(input: DefinitionInput & Pick<CampaignDefinition, 'name' | 'trigger' | 'steps'>): CampaignDefinition {
  const definition: CampaignDefinition = {
    name: input.name,
    description: input.description ?? '',
    trigger: input.trigger,
    trigger_conditions: { ...DEFAULT_TRIGGER_CONDITIONS, ...input.trigger_conditions },
    steps: input.steps,
    stop_conditions: { ...DEFAULT_STOP_CONDITIONS, ...input.stop_conditions },
    quiet_hours: { ...DEFAULT_QUIET_HOURS, ...input.quiet_hours },
  };
  checkDefinition(definition);
  return definition;
}

/**
 * A partial update (§4.1): scalars given replace, a given steps array replaces every step, and the
 * nested objects merge field by field (`{"quiet_hours": {"enabled": true}}` keeps the hours). The
 * result is checked as a whole, so a new max_amount below the stored min_amount is refused.
 */
export function updatedDefinition(current: CampaignDefinition, change: DefinitionInput): CampaignDefinition {
  const definition: CampaignDefinition = {
    name: change.name ?? current.name,
    description: change.description ?? current.description,
    trigger: change.trigger ?? current.trigger,
    trigger_conditions: { ...current.trigger_conditions, ...change.trigger_conditions },
    steps: change.steps ?? current.steps,
    stop_conditions: { ...current.stop_conditions, ...change.stop_conditions },
    quiet_hours: { ...current.quiet_hours, ...change.quiet_hours },
  };
  checkDefinition(definition);
  return definition;
}

export function definitionOf(campaign: CampaignDefinition): CampaignDefinition {
  const { name, description, trigger, trigger_conditions, steps, stop_conditions, quiet_hours } = campaign;
  return { name, description, trigger, trigger_conditions, steps, stop_conditions, quiet_hours };
}

/** Where a step's delay counts from: the first from enrollment, every later one from the step before. */
export type DelayFrom = 'enrollment' | 'previous_step';
export const delayFrom = (index: number): DelayFrom => (index === 0 ? 'enrollment' : 'previous_step');

/** The distinct channels of the steps, in the order they first appear. */
export const channelsOf = (steps: readonly CampaignStep[]): CampaignChannel[] => [...new Set(steps.map((step) => step.channel))];

export function recoveryRate(counters: Pick<CampaignCounters, 'enrolled_count' | 'recovered_count'>): number {
  if (counters.enrolled_count === 0) return 0;
  return Math.round((counters.recovered_count / counters.enrolled_count) * 10_000) / 10_000;
}

export function totalRecovered(counters: Pick<CampaignCounters, 'recovered_amounts' | 'primary_currency'>): { amount: number; currency: string | null } {
  const currency = counters.primary_currency;
  return { amount: currency === null ? 0 : (counters.recovered_amounts[currency] ?? 0), currency };
}

// Lifecycle (§3.1) ------------------------------------------------------------------------------

export type CampaignAction = 'update' | 'activate' | 'pause' | 'archive' | 'delete';

/** The statuses each action starts from; everything else is a 409 state_conflict. */
export const ALLOWED_FROM: Readonly<Record<CampaignAction, readonly CampaignStatus[]>> = {
  update: ['draft', 'active', 'paused'],
  activate: ['draft', 'paused'],
  pause: ['active'],
  archive: ['draft', 'active', 'paused'],
  delete: ['draft'],
};

export type StatusChange = 'activate' | 'pause' | 'archive';

export const STATUS_AFTER: Readonly<Record<StatusChange, CampaignStatus>> = {
  activate: 'active',
  pause: 'paused',
  archive: 'archived',
};

const VERB: Readonly<Record<CampaignAction, string>> = {
  update: 'updated',
  activate: 'activated',
  pause: 'paused',
  archive: 'archived',
  delete: 'deleted',
};

const WHY_NOT: Readonly<Record<CampaignAction, string>> = {
  update: 'Archived campaigns are read-only.',
  activate: 'Archived campaigns cannot be reactivated.',
  pause: 'Only active campaigns can be paused.',
  archive: 'It is already archived.',
  delete: 'Only drafts can be deleted; archive the campaign instead.',
};

export const canApply = (action: CampaignAction, status: CampaignStatus): boolean => ALLOWED_FROM[action].includes(status);

/** Why the action cannot be applied in the campaign's current status, or undefined when it can. */
export function refusal(action: CampaignAction, campaign: Pick<Campaign, 'id' | 'status'>): string | undefined {
  if (canApply(action, campaign.status)) return undefined;
  const why = action === 'activate' && campaign.status === 'active' ? 'It is already active.' : WHY_NOT[action];
  return `Campaign '${campaign.id}' cannot be ${VERB[action]}: its status is '${campaign.status}'. ${why}`;
}

/** Plan campaign limits (§8) are counted over these: campaigns not archived, and campaigns active. */
export interface CampaignCounts {
  open: number;
  active: number;
}

/** How a creation (from `none`), status change or deletion (to `none`) moves the counts the plan limits apply to. */
export function countsChange(from: CampaignStatus | 'none', to: CampaignStatus | 'none'): CampaignCounts {
  const isOpen = (status: CampaignStatus | 'none') => status !== 'archived' && status !== 'none';
  return {
    open: Number(isOpen(to)) - Number(isOpen(from)),
    active: Number(to === 'active') - Number(from === 'active'),
  };
}

// Listing (§4.1) ----------------------------------------------------------------------------------

export const CAMPAIGN_SORTS = ['created_at', 'name', 'status'] as const;
export type CampaignSort = (typeof CAMPAIGN_SORTS)[number];
export type SortOrder = 'asc' | 'desc';

export interface CampaignFilter {
  status?: CampaignStatus;
  trigger?: CampaignTrigger;
}

/** Status sorts by lifecycle (draft, active, paused, archived), which reads better than the alphabet. */
const STATUS_RANK: Readonly<Record<CampaignStatus, number>> = { draft: 0, active: 1, paused: 2, archived: 3 };

/** Built on the first sort by name: creating a collator loads ICU data, some 6 ms that every campaign function's cold start paid at import. */
let nameCollator: Intl.Collator | undefined;

function compareBy(sort: CampaignSort, a: Campaign, b: Campaign): number {
  switch (sort) {
    case 'name':
      nameCollator ??= new Intl.Collator('en', { sensitivity: 'base', numeric: true });
      return nameCollator.compare(a.name, b.name);
    case 'status':
      return STATUS_RANK[a.status] - STATUS_RANK[b.status];
    case 'created_at':
      return a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0;
  }
}

/**
 * The campaigns a list request asks for, in order. Ties fall back to creation order (ids sort by
 * creation time), in the same direction, so pages are stable.
 */
export function selectCampaigns(campaigns: readonly Campaign[], filter: CampaignFilter, sort: CampaignSort, order: SortOrder): Campaign[] {
  const direction = order === 'asc' ? 1 : -1;
  const matches = (campaign: Campaign) =>
    (filter.status === undefined || campaign.status === filter.status) && (filter.trigger === undefined || campaign.trigger === filter.trigger);
  const byId = (a: Campaign, b: Campaign) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  return campaigns.filter(matches).sort((a, b) => direction * (compareBy(sort, a, b) || compareBy('created_at', a, b) || byId(a, b)));
}
