import * as z from '#shared/zod';
import { describeTemplates, templatesOf } from '#shared/domain/templates/template-lifecycle';
import { CAMPAIGN_CHANNELS } from '#shared/model/campaign';
import { slicePage } from '#shared/model/pagination';
import { restHandler } from '#shared/http/rest-handler';
import { pageOf } from '#shared/http/responses';
import { pageQuery } from '#shared/http/query-schemas';
import { messageTemplateResource } from '#shared/representations/message-template';

const query = z.strictObject({ ...pageQuery, channel: z.enum(CAMPAIGN_CHANNELS, { error: 'must be email or sms' }).optional() });

/** GET /v1/templates: the built-in templates, then the merchant's own, oldest first. */
export const handler = restHandler({ query }, async ({ auth, query, now }) => {
  const templates = await templatesOf(auth.tenant, query.channel);
  const page = await describeTemplates(auth.tenant, slicePage(templates, query), now);
  return pageOf(page.map((template) => messageTemplateResource(template, auth.tenant)), templates.length, query);
});
