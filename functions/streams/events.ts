import { eventStreamHandler } from '#shared/events/stream-handler';
import { EVENT_CONSUMERS } from '#shared/events/registry';
import { tenantConfiguration } from '#shared/events/tenant-configuration';

/** The table's stream, filtered to new event items: campaign enrollment, outbound webhooks, analytics. */
export const handler = eventStreamHandler(EVENT_CONSUMERS, tenantConfiguration);
