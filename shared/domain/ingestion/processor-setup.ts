import { newId } from '../../ids.ts';
import { findConnectionForPsp, listConnections, saveConnection } from '../../store/processor-connections.ts';
import type { Tenant } from '../../model/tenant.ts';
import type { ProcessorConnection, ProcessorCredentials } from '../../model/processor-connection.ts';

/** Processors with their own webhook format and decline table; every other name is a generic processor. */
export const NATIVE_PROCESSORS = ['stripe', 'braintree'] as const;

export function webhookPath(connection: Pick<ProcessorConnection, 'id' | 'psp'>): string {
  return `/webhooks/${connection.psp}/${connection.id}`;
}

/** Creates the tenant's connection to a processor, or replaces its secrets keeping the webhook URL. */
export async function connectProcessor(tenant: Tenant, psp: string, credentials: ProcessorCredentials, now: Date): Promise<ProcessorConnection> {
  const existing = await findConnectionForPsp(tenant, psp);
  const connection: ProcessorConnection = {
    id: existing?.id ?? newId('con', now),
    merchant_id: tenant.merchantId,
    environment: tenant.environment,
    psp,
    credentials,
    created_at: existing?.created_at ?? now.toISOString(),
    updated_at: now.toISOString(),
  };
  await saveConnection(connection, existing?.id ?? null);
  return connection;
}

export async function listProcessorConnections(tenant: Tenant): Promise<ProcessorConnection[]> {
  // Names are lowercase ASCII (letters, digits, - and _): plain code-unit order, not localeCompare, whose first call loads ICU's collation data (some 6 ms of a cold start).
  return (await listConnections(tenant)).sort((a, b) => (a.psp < b.psp ? -1 : a.psp > b.psp ? 1 : 0));
}
