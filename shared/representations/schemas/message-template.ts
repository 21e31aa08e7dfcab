import * as z from '../../zod.ts';
import { TEMPLATE_VARIABLES } from '../../model/message-template.ts';
import { prefixedId, timestamp } from './common.ts';

const templateId = z.string().regex(/^tpl_[a-z0-9_]+$/);

const smsLengthSchema = z
  .strictObject({
    encoding: z.enum(['gsm7', 'ucs2']).meta({ description: 'GSM-7 when every character is in its alphabet, else UCS-2' }),
    units: z.int().nonnegative().meta({ description: 'septets (GSM-7; ^ { } [ ] ~ | € \\ and form feed count two) or UTF-16 code units (UCS-2)' }),
    segments: z.int().nonnegative().meta({ description: 'messages billed: 1 up to 160 GSM-7 / 70 UCS-2 units, else parts of 153 / 67' }),
  })
  .meta({ id: 'SmsLength' });

export const messageTemplateSchema = z
  .strictObject({
    id: templateId,
    object: z.literal('template'),
    channel: z.enum(['email', 'sms']),
    name: z.string(),
    subject: z.string().nullable().meta({ description: 'email only' }),
    html: z.string().nullable().meta({ description: 'email only; null: the HTML body is made from the text' }),
    text: z.string(),
    built_in: z.boolean().meta({ description: 'built-in templates are read-only; their ids are stable' }),
    sms_length: smsLengthSchema.nullable().meta({ description: 'sms only: the length of the text rendered with the sample data (preview with a customer for theirs)' }),
    variables: z.array(z.enum(Object.keys(TEMPLATE_VARIABLES) as [string, ...string[]])).meta({ description: 'the variables the template uses' }),
    livemode: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Template' });

const renderedSchema = z.strictObject({
  channel: z.enum(['email', 'sms']),
  subject: z.string().nullable(),
  html: z.string().nullable().meta({ description: 'the whole email: the branded frame, the body and the footer' }),
  text: z.string(),
});

export const templatePreviewSchema = z
  .strictObject({
    object: z.literal('template_preview'),
    template_id: templateId,
    customer_id: prefixedId('cus').nullable().meta({ description: 'null: rendered with sample data' }),
    payment_id: prefixedId('pay').nullable().meta({ description: "the customer's open failure the values came from; null when none" }),
    rendered: renderedSchema,
    sms_length: smsLengthSchema.nullable(),
  })
  .meta({ id: 'TemplatePreview' });

export const templateTestSendSchema = z
  .strictObject({
    id: prefixedId('tsd'),
    object: z.literal('template_test_send'),
    template_id: templateId,
    to: z.string(),
    rendered: renderedSchema,
    sent_at: timestamp,
  })
  .meta({ id: 'TemplateTestSend' });

export const deletedTemplateSchema = z.strictObject({ id: templateId, deleted: z.literal(true) });

export type MessageTemplateResource = z.output<typeof messageTemplateSchema>;
export type TemplatePreviewResource = z.output<typeof templatePreviewSchema>;
export type TemplateTestSendResource = z.output<typeof templateTestSendSchema>;
export type RenderedResource = z.output<typeof renderedSchema>;
