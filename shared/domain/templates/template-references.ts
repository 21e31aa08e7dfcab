import type { CampaignStep } from '../../model/campaign.ts';
import { validationFailed } from '../../model/errors.ts';
import type { Tenant } from '../../model/tenant.ts';
import { findTemplate } from '../../store/message-templates.ts';
import { builtInFor } from './built-in-templates.ts';

// Apart from template-lifecycle.ts: the campaign functions check references only, so their bundles
// leave out the template language (LiquidJS, 80 KB) that saving or describing a template needs.

/**
 * The merchant's own templates a campaign's steps name, each checked: it must exist in this
 * environment and be of the step's channel (422 naming the step's template_id). Built-in ids pass;
 * the campaign write marks the returned ones referenced.
 */
export async function storedTemplatesOf(tenant: Tenant, steps: readonly CampaignStep[]): Promise<string[]> {
  const stored = new Set<string>();
  for (const [index, step] of steps.entries()) {
    if (builtInFor(step.template_id, step.channel)) continue;
    const field = `steps.${index}.template_id`;
    const template = await findTemplate(tenant, step.template_id);
    if (!template) throw validationFailed(`Invalid ${field}: no such template: '${step.template_id}'`, field);
    if (template.channel !== step.channel) {
      throw validationFailed(`Invalid ${field}: template '${step.template_id}' is an ${template.channel} template; this is an ${step.channel} step`, field);
    }
    stored.add(template.id);
  }
  return [...stored];
}
