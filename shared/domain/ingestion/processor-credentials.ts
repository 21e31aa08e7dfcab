import { open, seal } from '../../envelope.ts';
import type { KeyVault } from '../../ports/key-vault.ts';
import { InstanceCache } from '../../store/instance-cache.ts';
import { scanConnectionItems, sealConnectionItem, type PlaintextConnectionItem } from '../../store/processor-connections.ts';
import { credentialContext } from './credential-context.ts';
import type { Tenant } from '../../model/tenant.ts';
import type { Envelope } from '../../model/envelope.ts';
import type { OpenedConnection, ProcessorConnection, ProcessorCredentials } from '../../model/processor-connection.ts';

/**
 * How long an instance keeps credentials it opened. Every sealing has a data key of its own, so
 * replaced credentials are a new entry at once; the lifetime only bounds how long a warm instance
 * goes on with credentials after the key was disabled or a grant revoked, against one KMS call per
 * connection and instance in that time.
 */
export const OPENED_CREDENTIALS_SECONDS = 300;
const openedCredentials = new InstanceCache<ProcessorCredentials>(OPENED_CREDENTIALS_SECONDS, 1_000);

export function sealCredentials(vault: KeyVault, tenant: Tenant, psp: string, credentials: ProcessorCredentials): Promise<Envelope> {
  return seal(vault, JSON.stringify(credentials), credentialContext(tenant, psp));
}

/** The connection's credentials in the clear: decrypted on first use, then from this instance's memory. */
export async function openCredentials(vault: KeyVault, connection: ProcessorConnection): Promise<ProcessorCredentials> {
  const stored = connection.credentials;
  if ('plaintext' in stored) return stored.plaintext;
  const { sealed } = stored;
  const key = `${connection.id}:${sealed.iv}`;
  const opened =
    openedCredentials.peek(key) ??
    (await openedCredentials.load(key, async () => JSON.parse(await open(vault, sealed, credentialContext(connection.tenant, connection.psp))) as ProcessorCredentials));
  return opened!;
}

/** Opens the connection's credentials when called: for a port whose adapter may not need them (the sandbox never does). */
export function credentialsOnDemand(vault: KeyVault, connection: ProcessorConnection | undefined): () => Promise<ProcessorCredentials | undefined> {
  return async () => (connection ? openCredentials(vault, connection) : undefined);
}

export async function openConnection(vault: KeyVault, connection: ProcessorConnection): Promise<OpenedConnection> {
  return { ...connection, credentials: await openCredentials(vault, connection) };
}

export interface SealingReport {
  /** Connection items examined (each connection has two: the tenant's and the webhook lookup). */
  connection_items: number;
  sealed_now: number;
  already_sealed: number;
  /** Replaced by a new connection request while the run went on, and so sealed by it. */
  changed_meanwhile: number;
}

/** KMS calls in flight at once: fast enough for thousands of connections, far below the account's request quota. */
const SEALING_CONCURRENCY = 8;

/**
 * Seals the credentials of every connection item written before credentials were sealed, each under a
 * data key of its own. Idempotent: sealed items are left alone, so a second run (or one after an
 * interrupted run) seals only what is left, and reports it.
 */
export async function sealPlaintextCredentials(ports: { keyVault: KeyVault }): Promise<SealingReport> {
  const report: SealingReport = { connection_items: 0, sealed_now: 0, already_sealed: 0, changed_meanwhile: 0 };
  const sealItem = async (item: PlaintextConnectionItem) => {
    const { connection } = item;
    const sealed = await sealCredentials(ports.keyVault, connection.tenant, connection.psp, connection.credentials.plaintext);
    if (await sealConnectionItem(item, sealed)) report.sealed_now += 1;
    else report.changed_meanwhile += 1;
  };
  for await (const page of scanConnectionItems()) {
    report.connection_items += page.sealed + page.plaintext.length;
    report.already_sealed += page.sealed;
    for (let start = 0; start < page.plaintext.length; start += SEALING_CONCURRENCY) {
      await Promise.all(page.plaintext.slice(start, start + SEALING_CONCURRENCY).map(sealItem));
    }
  }
  return report;
}
