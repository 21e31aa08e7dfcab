import * as z from '../zod.ts';
import { requiredText, text, updateBody, wholeNumber } from '../body-fields.ts';
import {
  CAMPAIGN_CHANNELS,
  CAMPAIGN_LIMITS,
  CAMPAIGN_TRIGGERS,
  isIanaTimeZone,
  TEMPLATE_ID_PATTERN,
  TRIGGER_DECLINE_CATEGORIES,
} from '../model/campaign.ts';

/**
 * The campaign definition fields of POST and PUT /v1/campaigns (§4.1). Single-field rules live here
 * (a missing required field → 400, a present but invalid one → 422, by the shared parse); rules
 * across fields (email subject, min ≤ max, quiet window) are checked by the domain on the whole
 * definition, also as 422. Defaults are applied by the domain, so an update can tell what was sent.
 */
const oneOf = (values: readonly string[]) => ({ error: `must be one of ${values.join(', ')}` });

const amount = z
  .number({ error: 'must be a non-negative integer in the smallest currency unit, or null' })
  .int({ error: 'must be a non-negative integer in the smallest currency unit, or null' })
  .min(0, { error: 'must be a non-negative integer in the smallest currency unit, or null' })
  .nullable();

const triggerConditions = z.strictObject(
  {
    decline_categories: z
      .array(z.enum(TRIGGER_DECLINE_CATEGORIES, oneOf(TRIGGER_DECLINE_CATEGORIES)), { error: 'must be an array of decline categories' })
      .refine((categories) => new Set(categories).size === categories.length, { error: 'must not repeat a category' })
      .optional(),
    min_amount: amount.optional(),
    max_amount: amount.optional(),
  },
  { error: 'must be an object' },
);

const step = z.strictObject(
  {
    channel: z.enum(CAMPAIGN_CHANNELS, oneOf(CAMPAIGN_CHANNELS)),
    template_id: z
      .string({ error: 'must be a template id (tpl_...)' })
      .max(CAMPAIGN_LIMITS.templateIdLength, { error: `must be at most ${CAMPAIGN_LIMITS.templateIdLength} characters` })
      .regex(TEMPLATE_ID_PATTERN, { error: 'must be a template id: tpl_ followed by lowercase letters, digits or underscores' }),
    subject: requiredText(CAMPAIGN_LIMITS.subjectLength).optional(),
    delay_hours: wholeNumber(0, CAMPAIGN_LIMITS.delayHours, 'a whole number of hours'),
  },
  { error: 'must be a step object' },
);

const steps = z
  .array(step, { error: 'must be an array of steps' })
  .min(1, { error: 'must have at least one step' })
  .max(CAMPAIGN_LIMITS.steps, { error: `must have at most ${CAMPAIGN_LIMITS.steps} steps` });

const stopConditions = z.strictObject(
  {
    max_attempts: wholeNumber(1, CAMPAIGN_LIMITS.steps).optional(),
    stop_on_recovery: z.boolean({ error: 'must be a boolean' }).optional(),
    stop_on_terminal: z.boolean({ error: 'must be a boolean' }).optional(),
    stop_on_card_update: z.boolean({ error: 'must be a boolean' }).optional(),
  },
  { error: 'must be an object' },
);

const quietHours = z.strictObject(
  {
    enabled: z.boolean({ error: 'must be a boolean' }).optional(),
    start_hour: wholeNumber(0, 23, 'an hour of the day').optional(),
    end_hour: wholeNumber(0, 23, 'an hour of the day').optional(),
    timezone: z
      .string({ error: 'must be an IANA time zone such as Europe/Paris' })
      .refine(isIanaTimeZone, { error: 'must be an IANA time zone such as Europe/Paris' })
      .optional(),
  },
  { error: 'must be an object' },
);

const definitionFields = {
  name: requiredText(CAMPAIGN_LIMITS.nameLength),
  description: text(CAMPAIGN_LIMITS.descriptionLength).optional(),
  trigger: z.enum(CAMPAIGN_TRIGGERS, oneOf(CAMPAIGN_TRIGGERS)),
  trigger_conditions: triggerConditions.optional(),
  steps,
  stop_conditions: stopConditions.optional(),
  quiet_hours: quietHours.optional(),
};

/** POST /v1/campaigns: name, trigger and steps are required. */
export const createCampaignBody = z.strictObject(definitionFields);

/** PUT /v1/campaigns/{id}: the same fields, each optional; only what is sent changes. */
export const updateCampaignBody = updateBody(definitionFields);
