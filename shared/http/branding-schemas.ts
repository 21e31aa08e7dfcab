import * as z from '../zod.ts';
import { requiredText, updateBody } from '../body-fields.ts';
import { BRANDING_LIMITS } from '../model/branding.ts';

/**
 * PUT /v1/settings/branding: the fields to change. Shapes here, rules (https logo on a named host,
 * a plausible address) in the model's brandingProblem, which the ops command shares.
 */
const nullableText = (max: number) =>
  z.union([z.string({ error: 'must be a string or null' }).check(z.trim(), z.minLength(1, { error: 'must not be empty (send null to clear it)' }), z.maxLength(max, { error: `must be at most ${max} characters` })), z.null()], {
    error: 'must be a string or null',
  });

export const updateBrandingBody = updateBody({
  name: requiredText(BRANDING_LIMITS.nameLength),
  logo_url: nullableText(BRANDING_LIMITS.logoUrlLength).meta({ description: 'An https image URL on a named host; null for none' }),
  accent_color: z
    .string({ error: 'must be a string' })
    .regex(/^#[0-9a-fA-F]{6}$/, { error: 'must be a colour as #rrggbb' })
    .meta({ description: 'Buttons and links on the card-update page and in emails; stored lowercase' }),
  support_email: nullableText(BRANDING_LIMITS.supportEmailLength).meta({ description: 'Shown on the card-update page and in email footers; null for none' }),
});
