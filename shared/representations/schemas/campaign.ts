import * as z from '../../zod.ts';
import { CAMPAIGN_CHANNELS, CAMPAIGN_STATUSES, CAMPAIGN_TRIGGERS, TRIGGER_DECLINE_CATEGORIES } from '../../model/campaign.ts';
import { amount, count, currency, prefixedId, rate, timestamp } from './common.ts';

const id = prefixedId('cmp');
const status = z.enum(CAMPAIGN_STATUSES);
const trigger = z.enum(CAMPAIGN_TRIGGERS);
const channels = z.array(z.enum(CAMPAIGN_CHANNELS)).meta({ description: 'distinct step channels, in step order' });
const hour = z.int().min(0).max(23);

/** §2.2 step; index and delay_from are derived. */
export const campaignStepSchema = z
  .strictObject({
    index: count,
    channel: z.enum(CAMPAIGN_CHANNELS),
    template_id: z.string(),
    subject: z.string().optional().meta({ description: 'email steps only' }),
    delay_hours: count,
    delay_from: z.enum(['enrollment', 'previous_step']),
  })
  .meta({ id: 'CampaignStep' });

const listFields = {
  id,
  name: z.string(),
  status,
  trigger,
  channels,
  steps_count: count,
  enrolled_count: count,
  recovered_count: count,
  recovery_rate: rate,
  created_at: timestamp,
  updated_at: timestamp,
};

/** §4.1 list item. */
export const campaignListItemSchema = z.strictObject(listFields).meta({ id: 'CampaignListItem' });

/** §2.2, every field: the detail endpoint. */
export const campaignSchema = z
  .strictObject({
    ...listFields,
    description: z.string(),
    trigger_conditions: z.strictObject({
      decline_categories: z.array(z.enum(TRIGGER_DECLINE_CATEGORIES)),
      min_amount: amount.nullable(),
      max_amount: amount.nullable(),
    }),
    steps: z.array(campaignStepSchema),
    stop_conditions: z.strictObject({
      max_attempts: z.int().min(1),
      stop_on_recovery: z.boolean(),
      stop_on_terminal: z.boolean(),
      stop_on_card_update: z.boolean(),
    }),
    quiet_hours: z.strictObject({ enabled: z.boolean(), start_hour: hour, end_hour: hour, timezone: z.string() }),
    stats: z.strictObject({
      enrolled_count: count,
      recovered_count: count,
      terminal_count: count,
      active_count: count,
      recovery_rate: rate,
      total_recovered_amount: amount,
      currency: currency.nullable().meta({ description: "the currency of the campaign's first recovery" }),
    }),
    activated_at: timestamp.nullable(),
  })
  .meta({ id: 'Campaign' });

export const createdCampaignSchema = z
  .strictObject({ id, name: z.string(), status, trigger, steps_count: count, created_at: timestamp })
  .meta({ id: 'CreatedCampaign' });

export const updatedCampaignSchema = z.strictObject({ id, name: z.string(), status, updated_at: timestamp }).meta({ id: 'UpdatedCampaign' });

export const activatedCampaignSchema = z.strictObject({ id, status, activated_at: timestamp.nullable() }).meta({ id: 'ActivatedCampaign' });
export const pausedCampaignSchema = z.strictObject({ id, status, paused_at: timestamp.nullable() }).meta({ id: 'PausedCampaign' });
export const archivedCampaignSchema = z.strictObject({ id, status, archived_at: timestamp.nullable() }).meta({ id: 'ArchivedCampaign' });

export type CampaignStepResource = z.output<typeof campaignStepSchema>;
export type CampaignListItem = z.output<typeof campaignListItemSchema>;
export type CampaignResource = z.output<typeof campaignSchema>;
export type CreatedCampaign = z.output<typeof createdCampaignSchema>;
export type UpdatedCampaign = z.output<typeof updatedCampaignSchema>;
export type ActivatedCampaign = z.output<typeof activatedCampaignSchema>;
export type PausedCampaign = z.output<typeof pausedCampaignSchema>;
export type ArchivedCampaign = z.output<typeof archivedCampaignSchema>;
