import type { CampaignStep } from '../../model/campaign.ts';
import { stateConflict } from '../../model/errors.ts';
import type { Tenant } from '../../model/tenant.ts';
import { listCampaignItems, listCampaignVersions } from '../../store/campaigns.ts';
import { deleteTemplate, getTemplate } from '../../store/message-templates.ts';
import { LOST, MERCHANT_WRITE, writeOptimistically, type ContentionPolicy } from '../contention.ts';
import { builtInTemplate } from './built-in-templates.ts';

// Apart from template-lifecycle.ts: deleting a template reads no Liquid, so templates/delete's bundle
// leaves out the template language (LiquidJS, 80 KB) that saving or describing one needs.

/** Built-in templates are the service's: changing or deleting one is a 409. */
export const builtInIsReadOnly = (id: string) =>
  stateConflict(`Template '${id}' is built in and cannot be changed or deleted; create a template of your own and name it in your campaign steps.`);

/** Writes to one template (a change or a delete) retry a few times when another request wrote it first. */
export const changing = (id: string): ContentionPolicy => ({
  write: 'message_template',
  attempts: 5,
  backoff: MERCHANT_WRITE,
  exhausted: () => stateConflict(`Template '${id}' was changed by another request at the same time; retry the request.`),
});

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
