import { webhookPath } from '../domain/ingestion/processor-setup.ts';
import type { ProcessorConnectionResource } from './schemas/processor-connection.ts';
import type { ProcessorConnection } from '../model/processor-connection.ts';

/** A connection as merchants see it: where to point the processor's webhooks; never a secret. */
export function processorConnectionResource(connection: ProcessorConnection, baseUrl: string): ProcessorConnectionResource {
  return {
    id: connection.id,
    psp: connection.psp,
    webhook_url: `${baseUrl}${webhookPath(connection)}`,
    retries_enabled: connection.apiAccess,
    created_at: connection.createdAt,
    updated_at: connection.updatedAt,
  };
}
