import * as z from '../zod.ts';
import { requiredText, updateBody } from '../body-fields.ts';
import { CAMPAIGN_CHANNELS, TEMPLATE_ID_PATTERN } from '../model/campaign.ts';
import { TEMPLATE_LIMITS } from '../model/message-template.ts';
import { pathText, UNKNOWN_ID } from './schemas.ts';

/**
 * Request bodies and the path id of /v1/templates. Fields are checked one by one here; what depends
 * on the channel (a subject for email, text only for sms) and the Liquid itself are the domain's 422s.
 */
const body = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .max(max, { error: `must be at most ${max} characters` });

const fields = {
  name: requiredText(TEMPLATE_LIMITS.nameLength),
  subject: requiredText(TEMPLATE_LIMITS.subjectLength).meta({ description: 'Email only: the subject line (Liquid).' }),
  html: body(TEMPLATE_LIMITS.htmlLength)
    .nullable()
    .meta({ description: 'Email only: the HTML body (Liquid; every value printed is HTML-escaped). Null or absent: made from the text body.' }),
  text: body(TEMPLATE_LIMITS.textLength).meta({ description: 'The plain-text body (email) or the message (sms, at most 1600 characters); Liquid.' }),
};

export const createTemplateBody = z.strictObject({
  channel: z.enum(CAMPAIGN_CHANNELS, { error: `must be one of ${CAMPAIGN_CHANNELS.join(', ')}` }),
  name: fields.name,
  subject: fields.subject.optional(),
  html: fields.html.optional(),
  text: fields.text,
});

/** The channel is fixed at creation: a template's steps were checked against it. */
export const updateTemplateBody = updateBody(fields);

/** `{id}` of /v1/templates/{id}: a built-in id (tpl_payment_failed) or a merchant's (tpl_ + 26 characters). */
export const templateIdParam = z.strictObject({
  id: pathText()
    .refine((id) => TEMPLATE_ID_PATTERN.test(id), { params: { [UNKNOWN_ID]: 'template' } })
    .meta({ description: "The template's id (tpl_…); one that names none is 404 resource_not_found" }),
});

const customerId = z.string().regex(/^cus_[0-9a-z]{26}$/, { error: 'must be a customer id (cus_…)' });

export const previewBody = z.strictObject({
  customer_id: customerId.optional().meta({ description: "Fill the variables from this customer's most recent open failure; sample data when absent." }),
});

export const testSendBody = z.strictObject({
  to: z
    .string({ error: 'must be a string' })
    .min(3, { error: 'must be an email address or an E.164 phone number' })
    .max(254, { error: 'must be at most 254 characters' })
    .meta({ description: 'An email address (email templates) or an E.164 phone number (sms templates).' }),
  customer_id: customerId.optional(),
});
