import { newId } from '../../ids.ts';
import type { KeyVault } from '../../ports/key-vault.ts';
import { findConnectionForPsp, listConnections, saveConnection } from '../../store/processor-connections.ts';
import { sealCredentials } from './processor-credentials.ts';
import type { Tenant } from '../../model/tenant.ts';
import { hasApiAccess, type ProcessorConnection, type ProcessorCredentials, type SealedConnection } from '../../model/processor-connection.ts';

/** Processors with their own webhook format and decline table; every other name is a generic processor. */
export const NATIVE_PROCESSORS = ['stripe', 'braintree'] as const;

export function webhookPath(connection: Pick<ProcessorConnection, 'id' | 'psp'>): string {
  return `/webhooks/${connection.psp}/${connection.id}`;
}

/** Creates the tenant's connection to a processor, or replaces its secrets keeping the webhook URL. The secrets are stored sealed. */
export async function connectProcessor(
  ports: { keyVault: KeyVault },
  tenant: Tenant,
  psp: string,
  credentials: ProcessorCredentials,
  now: Date,
): Promise<ProcessorConnection> {
  // Independent, so made together: the request waits for one round trip, not two.
  const [existing, sealed] = await Promise.all([findConnectionForPsp(tenant, psp), sealCredentials(ports.keyVault, tenant, psp, credentials)]);
  const connection: SealedConnection = {
    id: existing?.id ?? newId('con', now),
    tenant,
    psp,
    apiAccess: hasApiAccess(credentials),
    credentials: { sealed },
    createdAt: existing?.createdAt ?? now.toISOString(),
    updatedAt: now.toISOString(),
  };
  await saveConnection(connection, existing?.id ?? null);
  return connection;
}

export async function listProcessorConnections(tenant: Tenant): Promise<ProcessorConnection[]> {
  // Names are lowercase ASCII (letters, digits, - and _): plain code-unit order, not localeCompare, whose first call loads ICU's collation data (some 6 ms of a cold start).
  return (await listConnections(tenant)).sort((a, b) => (a.psp < b.psp ? -1 : a.psp > b.psp ? 1 : 0));
}
