import { newId } from '../../ids.ts';
import type { CampaignChannel } from '../../model/campaign.ts';
import { validationFailed } from '../../model/errors.ts';
import type { Branding } from '../../model/branding.ts';
import { smsLength, TEMPLATE_LIMITS, TEMPLATE_VARIABLES, type MessageTemplate, type SmsLength, type TemplateVariable } from '../../model/message-template.ts';
import type { Tenant } from '../../model/tenant.ts';
import { brandingOf } from '../../store/branding.ts';
import { getTemplate, listTemplates, saveTemplate } from '../../store/message-templates.ts';
import { LOST, writeOptimistically } from '../contention.ts';
import { BUILT_IN_TEMPLATES, builtInTemplate } from './built-in-templates.ts';
import { renderMessage, sampleFacts, templateValues } from './message-rendering.ts';
import { checkedTemplate, variablesIn, type SourceKind } from './template-language.ts';
import { builtInIsReadOnly, changing } from './template-removal.ts';

/**
 * The /v1/templates API: merchants' own templates beside the built-in ones (read-only), each checked
 * when saved: its fields for its channel, its Liquid, and a render with sample data.
 */

export interface TemplateInput {
  channel: CampaignChannel;
  name: string;
  subject?: string;
  html?: string | null;
  text: string;
}

export type TemplateChange = Partial<Omit<TemplateInput, 'channel'>>;

type TemplateContent = Pick<MessageTemplate, 'channel' | 'name' | 'subject' | 'html' | 'text'>;

/** The channel's rules, then the Liquid of every field, then one render with sample data, in that order. */
async function checkContent(tenant: Tenant, content: TemplateContent, now: Date): Promise<void> {
  if (content.channel === 'email') {
    if (content.subject === null) throw validationFailed('Invalid subject: email templates need a subject', 'subject');
    checkedTemplate('subject', content.subject, 'plain');
    if (content.html !== null) checkedTemplate('html', content.html, 'html');
  } else {
    if (content.subject !== null) throw validationFailed('Invalid subject: sms templates have no subject; remove it', 'subject');
    if (content.html !== null) throw validationFailed('Invalid html: sms templates are text only; remove it', 'html');
    if (content.text.length > TEMPLATE_LIMITS.smsTextLength) {
      throw validationFailed(`Invalid text: an sms template must be at most ${TEMPLATE_LIMITS.smsTextLength} characters`, 'text');
    }
  }
  checkedTemplate('text', content.text, 'plain');
  // A bound exceeded or a filter that cannot take a variable's value shows only when rendered.
  const branding = await brandingOf(tenant);
  renderMessage({ ...content, id: 'tpl_check', built_in: false, created_at: '', updated_at: '', version: 0 }, templateValues(sampleFacts(now), branding, now), branding);
}

/** A template as the API shows it: with the variables it uses and, for sms, what its sample rendering costs. */
export interface DescribedTemplate {
  template: MessageTemplate;
  variables: TemplateVariable[];
  sms: SmsLength | null;
}

function described(template: MessageTemplate, branding: Branding, now: Date): DescribedTemplate {
  const sources: [string | null, SourceKind][] = [[template.subject, 'plain'], [template.html, 'html'], [template.text, 'plain']];
  const used = new Set(sources.flatMap(([source, kind]) => (source === null ? [] : variablesIn(source, kind))));
  const sms = template.channel === 'sms' ? smsLength(renderMessage(template, templateValues(sampleFacts(now), branding, now), branding).text) : null;
  return { template, variables: (Object.keys(TEMPLATE_VARIABLES) as TemplateVariable[]).filter((name) => used.has(name)), sms };
}

/** Describes templates for a response, with the tenant's branding read once. */
export async function describeTemplates(tenant: Tenant, templates: readonly MessageTemplate[], now: Date): Promise<DescribedTemplate[]> {
  const branding = await brandingOf(tenant);
  return templates.map((template) => described(template, branding, now));
}

export async function createTemplate(tenant: Tenant, input: TemplateInput, now: Date): Promise<MessageTemplate> {
  const at = now.toISOString();
  const template: MessageTemplate = {
    id: newId('tpl', now),
    channel: input.channel,
    name: input.name,
    subject: input.subject ?? null,
    html: input.html ?? null,
    text: input.text,
    built_in: false,
    created_at: at,
    updated_at: at,
    version: 1,
  };
  await checkContent(tenant, template, now);
  await saveTemplate(tenant, template, null);
  return template;
}

/** Built-in templates first, then the merchant's, oldest first. */
export async function templatesOf(tenant: Tenant, channel?: CampaignChannel): Promise<MessageTemplate[]> {
  const all = [...BUILT_IN_TEMPLATES, ...(await listTemplates(tenant))];
  return channel === undefined ? all : all.filter((template) => template.channel === channel);
}

/** A built-in template or one of the merchant's (404, or 401 for the other environment's). */
export async function templateOf(tenant: Tenant, id: string): Promise<MessageTemplate> {
  return builtInTemplate(id) ?? getTemplate(tenant, id);
}

/** PUT /v1/templates/{id}: the fields sent replace the stored ones (html: null drops the HTML body); the channel stays. */
export async function updateTemplate(tenant: Tenant, id: string, change: TemplateChange, now: Date): Promise<MessageTemplate> {
  if (builtInTemplate(id)) throw builtInIsReadOnly(id);
  return writeOptimistically(changing(id), async () => {
    const current = await getTemplate(tenant, id);
    const next: MessageTemplate = {
      ...current,
      ...(change.name === undefined ? {} : { name: change.name }),
      ...(change.subject === undefined ? {} : { subject: change.subject }),
      ...(change.html === undefined ? {} : { html: change.html }),
      ...(change.text === undefined ? {} : { text: change.text }),
      updated_at: now.toISOString(),
      version: current.version + 1,
    };
    await checkContent(tenant, next, now);
    return (await saveTemplate(tenant, next, current.version)) ? next : LOST;
  });
}
