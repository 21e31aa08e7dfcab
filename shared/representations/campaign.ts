import { channelsOf, delayFrom, recoveryRate, totalRecovered, type Campaign, type CampaignStep } from '../model/campaign.ts';
import type {
  ActivatedCampaign,
  ArchivedCampaign,
  CampaignListItem,
  CampaignResource,
  CampaignStepResource,
  CreatedCampaign,
  PausedCampaign,
  UpdatedCampaign,
} from './schemas/campaign.ts';
import type { DeletedObject } from './schemas/common.ts';

/** §2.2 step: position and what its delay counts from are derived, never stored; sms steps carry no subject. */
export function campaignSteps(steps: readonly CampaignStep[]): CampaignStepResource[] {
  return steps.map((step, index) => ({
    index,
    channel: step.channel,
    template_id: step.template_id,
    ...(step.subject === undefined ? {} : { subject: step.subject }),
    delay_hours: step.delay_hours,
    delay_from: delayFrom(index),
  }));
}

/** §4.1 list item. */
export function campaignListItem(campaign: Campaign): CampaignListItem {
  return {
    id: campaign.id,
    name: campaign.name,
    status: campaign.status,
    trigger: campaign.trigger,
    channels: channelsOf(campaign.steps),
    steps_count: campaign.steps.length,
    enrolled_count: campaign.enrolled_count,
    recovered_count: campaign.recovered_count,
    recovery_rate: recoveryRate(campaign),
    created_at: campaign.created_at,
    updated_at: campaign.updated_at,
  };
}

/** §2.2 campaign object, every field: the detail endpoint. */
export function campaignResource(campaign: Campaign): CampaignResource {
  const recovered = totalRecovered(campaign);
  // Built field by field: stored maps come back from DynamoDB in no particular key order.
  const { trigger_conditions, stop_conditions, quiet_hours } = campaign;
  return {
    id: campaign.id,
    name: campaign.name,
    description: campaign.description,
    status: campaign.status,
    trigger: campaign.trigger,
    trigger_conditions: {
      decline_categories: trigger_conditions.decline_categories,
      min_amount: trigger_conditions.min_amount,
      max_amount: trigger_conditions.max_amount,
    },
    steps: campaignSteps(campaign.steps),
    stop_conditions: {
      max_attempts: stop_conditions.max_attempts,
      stop_on_recovery: stop_conditions.stop_on_recovery,
      stop_on_terminal: stop_conditions.stop_on_terminal,
      stop_on_card_update: stop_conditions.stop_on_card_update,
    },
    quiet_hours: {
      enabled: quiet_hours.enabled,
      start_hour: quiet_hours.start_hour,
      end_hour: quiet_hours.end_hour,
      timezone: quiet_hours.timezone,
    },
    steps_count: campaign.steps.length,
    enrolled_count: campaign.enrolled_count,
    recovered_count: campaign.recovered_count,
    recovery_rate: recoveryRate(campaign),
    channels: channelsOf(campaign.steps),
    stats: {
      enrolled_count: campaign.enrolled_count,
      recovered_count: campaign.recovered_count,
      terminal_count: campaign.terminal_count,
      active_count: campaign.active_count,
      recovery_rate: recoveryRate(campaign),
      total_recovered_amount: recovered.amount,
      currency: recovered.currency,
    },
    created_at: campaign.created_at,
    activated_at: campaign.activated_at,
    updated_at: campaign.updated_at,
  };
}

/** §4.1 create response. */
export const createdCampaign = (campaign: Campaign): CreatedCampaign => ({
  id: campaign.id,
  name: campaign.name,
  status: campaign.status,
  trigger: campaign.trigger,
  steps_count: campaign.steps.length,
  created_at: campaign.created_at,
});

/** §4.1 update response. */
export const updatedCampaign = (campaign: Campaign): UpdatedCampaign => ({
  id: campaign.id,
  name: campaign.name,
  status: campaign.status,
  updated_at: campaign.updated_at,
});

/** §4.1 activate response; pause and archive answer the same way with their own timestamp (docs/decisions.md). */
export const activatedCampaign = (campaign: Campaign): ActivatedCampaign => ({ id: campaign.id, status: campaign.status, activated_at: campaign.activated_at });
export const pausedCampaign = (campaign: Campaign): PausedCampaign => ({ id: campaign.id, status: campaign.status, paused_at: campaign.paused_at });
export const archivedCampaign = (campaign: Campaign): ArchivedCampaign => ({ id: campaign.id, status: campaign.status, archived_at: campaign.archived_at });

/** DELETE response, as Stripe answers deletions. */
export const deletedCampaign = (campaignId: string): DeletedObject => ({ id: campaignId, deleted: true });
