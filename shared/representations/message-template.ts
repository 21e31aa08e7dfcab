import type { Tenant } from '../model/tenant.ts';
import type { DescribedTemplate } from '../domain/templates/template-lifecycle.ts';
import type { Preview, TestSend } from '../domain/templates/template-preview.ts';
import type { RenderedMessage } from '../domain/templates/message-rendering.ts';
import type { MessageTemplateResource, RenderedResource, TemplatePreviewResource, TemplateTestSendResource } from './schemas/message-template.ts';

/** The REST shape of a template; built-in ones are listed and shown like the merchant's own. */
export function messageTemplateResource({ template, variables, sms }: DescribedTemplate, tenant: Tenant): MessageTemplateResource {
  return {
    id: template.id,
    object: 'template',
    channel: template.channel,
    name: template.name,
    subject: template.subject,
    html: template.html,
    text: template.text,
    built_in: template.built_in,
    sms_length: sms,
    variables,
    livemode: tenant.environment === 'live',
    created_at: template.created_at,
    updated_at: template.updated_at,
  };
}

function renderedResource(message: RenderedMessage): RenderedResource {
  return message.channel === 'email'
    ? { channel: 'email', subject: message.subject, html: message.html, text: message.text }
    : { channel: 'sms', subject: null, html: null, text: message.text };
}

export function templatePreviewResource(preview: Preview): TemplatePreviewResource {
  return {
    object: 'template_preview',
    template_id: preview.template.id,
    customer_id: preview.customerId,
    payment_id: preview.paymentId,
    rendered: renderedResource(preview.message),
    sms_length: preview.sms,
  };
}

export function templateTestSendResource(send: TestSend): TemplateTestSendResource {
  return { id: send.id, object: 'template_test_send', template_id: send.template.id, to: send.to, rendered: renderedResource(send.message), sent_at: send.sentAt };
}
