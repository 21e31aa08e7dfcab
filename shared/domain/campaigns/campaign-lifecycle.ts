import { newId } from '../../ids.ts';
import {
  getCampaign,
  insertCampaign,
  listCampaignItems,
  removeCampaign,
  saveDefinition,
  saveStatus,
  type CampaignWrite,
} from '../../store/campaigns.ts';
import {
  countsChange,
  EMPTY_COUNTERS,
  newDefinition,
  refusal,
  selectCampaigns,
  STATUS_AFTER,
  updatedDefinition,
  type Campaign,
  type CampaignCounts,
  type CampaignDefinition,
  type CampaignFilter,
  type CampaignSort,
  type DefinitionInput,
  type SortOrder,
  type StatusChange,
} from '../../model/campaign.ts';
import { ServiceError, stateConflict } from '../../model/errors.ts';
import { PLANS, type Plan } from '../../model/plans.ts';
import type { Tenant } from '../../model/tenant.ts';
import { storedTemplatesOf } from '../templates/template-references.ts';
import { LOST, MERCHANT_WRITE, writeOptimistically, type ContentionPolicy } from '../contention.ts';
import { newEvent, type CampaignStatusChanged } from '../../model/events.ts';

export { getCampaign } from '../../store/campaigns.ts';

/** §8: over the plan's campaign limit. Which count is full, and how to get under it, is in the message. */
export class CampaignLimitReached extends ServiceError {
  constructor(plan: Plan, count: keyof CampaignCounts) {
    const limit = PLANS[plan].campaigns[count];
    super(
      'campaign_limit_exceeded',
      count === 'open'
        ? `The ${plan} plan allows ${limit} campaigns that are not archived. Archive or delete one, or upgrade the plan.`
        : `The ${plan} plan allows ${limit} active campaigns at a time. Pause or archive one, or upgrade the plan.`,
    );
  }
}

/**
 * Every write is conditioned on the state it was decided from; losing a race means reading again and
 * deciding again (which, for a second activation, is the 409). Tries are few: only a burst of
 * requests on one campaign or on the tenant's counts collides.
 */
const campaignWrite = (refusal: string): ContentionPolicy => ({ write: 'campaign', attempts: 6, backoff: MERCHANT_WRITE, exhausted: () => stateConflict(refusal) });

const changedConcurrently = (campaignId: string): ContentionPolicy =>
  campaignWrite(`Campaign '${campaignId}' was changed by another request at the same time; retry the request.`);

const limitsOf = (plan: Plan): CampaignCounts => PLANS[plan].campaigns;

function limitHit(change: CampaignCounts): keyof CampaignCounts {
  return change.active > 0 ? 'active' : 'open';
}

/** POST /v1/campaigns (§3.1): a draft, counted against the plan's limit on campaigns not archived. */
export async function createCampaign(
  tenant: Tenant,
  plan: Plan,
  input: DefinitionInput & Pick<CampaignDefinition, 'name' | 'trigger' | 'steps'>,
  now: Date,
): Promise<Campaign> {
  const at = now.toISOString();
  const campaign: Campaign = {
    id: newId('cmp', now),
    status: 'draft',
    ...newDefinition(input),
    ...EMPTY_COUNTERS,
    version: 1,
    created_at: at,
    updated_at: at,
    activated_at: null,
    paused_at: null,
    archived_at: null,
  };
  const change = countsChange('none', 'draft');
  return writeOptimistically(campaignWrite('Too many campaigns are being created at the same time; retry the request.'), async () => {
    const templates = await storedTemplatesOf(tenant, campaign.steps);
    const outcome: CampaignWrite = await insertCampaign(tenant, campaign, change, limitsOf(plan), templates);
    if (outcome === 'over_limit') throw new CampaignLimitReached(plan, 'open');
    return outcome === 'written' ? campaign : LOST;
  });
}

export async function listCampaigns(tenant: Tenant, filter: CampaignFilter, sort: CampaignSort, order: SortOrder): Promise<Campaign[]> {
  return selectCampaigns(await listCampaignItems(tenant), filter, sort, order);
}

/**
 * PUT /v1/campaigns/{id}: a partial update, saved as a new definition version. Allowed until the
 * campaign is archived; customers already enrolled keep the version they joined (§3.1).
 */
export async function updateCampaign(tenant: Tenant, campaignId: string, change: DefinitionInput, now: Date): Promise<Campaign> {
  return writeOptimistically(changedConcurrently(campaignId), async () => {
    const current = await getCampaign(tenant, campaignId);
    const refused = refusal('update', current);
    if (refused) throw stateConflict(refused);
    const next: Campaign = {
      ...current,
      ...updatedDefinition(current, change),
      version: current.version + 1,
      updated_at: now.toISOString(),
    };
    // Steps left as they were were checked when saved; a template they name cannot have gone since.
    const templates = change.steps === undefined ? [] : await storedTemplatesOf(tenant, next.steps);
    return (await saveDefinition(tenant, current, next, templates)) === 'written' ? next : LOST;
  });
}

function afterChange(current: Campaign, action: StatusChange, at: string): Campaign {
  const next: Campaign = { ...current, status: STATUS_AFTER[action], updated_at: at };
  if (action === 'activate') next.activated_at = at;
  if (action === 'pause') next.paused_at = at;
  if (action === 'archive') next.archived_at = at;
  return next;
}

/**
 * activate (draft or paused → active, within the plan's active-campaign limit), pause (active →
 * paused), archive (any but archived → archived, for good). Of concurrent identical requests exactly
 * one wins; the others read the new status and get the 409 it implies.
 */
export async function changeCampaignStatus(tenant: Tenant, plan: Plan, campaignId: string, action: StatusChange, now: Date): Promise<Campaign> {
  return writeOptimistically(changedConcurrently(campaignId), async () => {
    const current = await getCampaign(tenant, campaignId);
    const refused = refusal(action, current);
    if (refused) throw stateConflict(refused);
    const next = afterChange(current, action, now.toISOString());
    const change = countsChange(current.status, next.status);
    // §3.1: activation releases what a pause held, archiving removes the enrolled customers; the
    // event this change records has that done in the background (campaign-sweeps.ts).
    const changed = newEvent(tenant, 'campaign.status_changed', { campaign_id: campaignId, from: current.status, to: next.status } satisfies CampaignStatusChanged, now);
    const outcome = await saveStatus(tenant, current, next, change, limitsOf(plan), changed);
    if (outcome === 'over_limit') throw new CampaignLimitReached(plan, limitHit(change));
    return outcome === 'written' ? next : LOST;
  });
}

/** DELETE /v1/campaigns/{id}: drafts only, removed for good with their versions; others are archived instead. */
export async function deleteCampaign(tenant: Tenant, campaignId: string): Promise<void> {
  await writeOptimistically(changedConcurrently(campaignId), async () => {
    const current = await getCampaign(tenant, campaignId);
    const refused = refusal('delete', current);
    if (refused) throw stateConflict(refused);
    return (await removeCampaign(tenant, current, countsChange(current.status, 'none'))) === 'written' ? undefined : LOST;
  });
}
