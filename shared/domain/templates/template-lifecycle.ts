import { newId } from '../../ids.ts';
import type { CampaignChannel, CampaignStep } from '../../model/campaign.ts';
import { stateConflict, validationFailed } from '../../model/errors.ts';
import type { Branding } from '../../model/branding.ts';
import { smsLength, TEMPLATE_LIMITS, TEMPLATE_VARIABLES, type MessageTemplate, type SmsLength, type TemplateVariable } from '../../model/message-template.ts';
import type { Tenant } from '../../model/tenant.ts';
import { brandingOf } from '../../store/branding.ts';
import { listCampaignItems, listCampaignVersions } from '../../store/campaigns.ts';
import { deleteTemplate, getTemplate, listTemplates, saveTemplate } from '../../store/message-templates.ts';
import { LOST, MERCHANT_WRITE, writeOptimistically, type ContentionPolicy } from '../contention.ts';
import { BUILT_IN_TEMPLATES, builtInTemplate } from './built-in-templates.ts';
import { renderMessage, sampleFacts, templateValues } from './message-rendering.ts';
import { checkedTemplate, variablesIn, type SourceKind } from './template-language.ts';

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

const builtInIsReadOnly = (id: string) =>
  stateConflict(`Template '${id}' is built in and cannot be changed or deleted; create a template of your own and name it in your campaign steps.`);

const changing = (id: string): ContentionPolicy => ({
  write: 'message_template',
  attempts: 5,
  backoff: MERCHANT_WRITE,
  exhausted: () => stateConflict(`Template '${id}' was changed by another request at the same time; retry the request.`),
});

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

/** The campaigns whose steps name the template: their current definition, or a version enrollments may still follow. */
async function campaignsUsing(tenant: Tenant, id: string): Promise<string[]> {
  const [campaigns, versions] = await Promise.all([listCampaignItems(tenant), listCampaignVersions(tenant)]);
  const live = new Set(campaigns.filter((campaign) => campaign.status !== 'archived').map((campaign) => campaign.id));
  const names = (steps: readonly CampaignStep[]) => steps.some((step) => step.template_id === id);
  const using = [
    ...campaigns.filter((campaign) => live.has(campaign.id) && names(campaign.steps)).map((campaign) => campaign.id),
    ...versions.filter((version) => live.has(version.campaign_id) && names(version.steps)).map((version) => version.campaign_id),
  ];
  return [...new Set(using)].sort();
}

/**
 * DELETE /v1/templates/{id}: refused (409) while a campaign that is not archived names it, in its
 * current steps or a version its enrollments follow. The delete is conditioned on the version read
 * before that check, and campaign writes move it (templateReferenceWrite), so neither can slip past the other.
 */
export async function removeTemplate(tenant: Tenant, id: string): Promise<void> {
  if (builtInTemplate(id)) throw builtInIsReadOnly(id);
  await writeOptimistically(changing(id), async () => {
    const current = await getTemplate(tenant, id);
    const using = await campaignsUsing(tenant, id);
    if (using.length > 0) {
      throw stateConflict(`Template '${id}' is used by campaign ${using.map((c) => `'${c}'`).join(', ')}; change or archive ${using.length === 1 ? 'it' : 'them'} first.`);
    }
    return (await deleteTemplate(tenant, current)) ? true : LOST;
  });
}
