import { webhookPath } from '../domain/ingestion/processor-setup.ts';
import type { ProcessorConnectionResource } from './schemas/processor-connection.ts';
import type { ProcessorConnection } from '../model/processor-connection.ts';

/** A connection as merchants see it: where to point the processor's webhooks; never a secret. */
export function processorConnectionResource(connection: ProcessorConnection, baseUrl: string): ProcessorConnectionResource {
  const { credentials } = connection;
  return {
    id: connection.id,
    psp: connection.psp,
    webhook_url: `${baseUrl}${webhookPath(connection)}`,
    retries_enabled: credentials.kind === 'braintree' || (credentials.kind === 'stripe' && credentials.apiKey !== null),
    created_at: connection.created_at,
    updated_at: connection.updated_at,
  };
}
