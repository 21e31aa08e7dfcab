process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
/**
 * `npm start`: the whole service on this machine. DynamoDB Local (on disk under .local/, or in memory
 * with --memory), the table, every route of the route table, the dev routes, and a demo merchant.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startDynamoDbLocal, type LocalEngine } from './local/dynamodb-local.ts';
import { ensureTable, localEnvironment } from './local/table.ts';
import type { LocalServer } from './local/server.ts';
import { CREDENTIALS_FILE, ENGINE_FILE, LOCAL_DIR, LOCAL_TABLE, readJson, VAULT_KEY_FILE, writeJson, type Credentials } from './local/credentials.ts';
import { ensureDashboardBuilt } from './dashboard-build.ts';

const memory = process.argv.includes('--memory');
const timer = !process.argv.includes('--no-timer');

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
/** How long a stop waits for requests already received; a client's retry covers what is cut off after it. */
const DRAIN_MS = 5_000;

function optionValue(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  if (index === -1) return undefined;
  const value = process.argv[index + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`${name} needs a value`);
  return value;
}

/** The engine: the one named by --dynamodb-endpoint, else DynamoDB Local started here (on disk, or in memory with --memory). */
async function engineToUse(tableName: string): Promise<Pick<LocalEngine, 'endpoint' | 'stop'> & { description: string }> {
  // An engine this process did not start (a DynamoDB Local run elsewhere, or a proxy in front of one): used as it is, never stopped.
  const externalEndpoint = optionValue('--dynamodb-endpoint');
  if (externalEndpoint) {
    new URL(externalEndpoint); // a malformed URL stops the start here, not at the first request
    return { endpoint: externalEndpoint, stop: async () => {}, description: `DynamoDB at ${externalEndpoint}, table ${tableName}` };
  }
  const dataDir = memory ? undefined : join(LOCAL_DIR, 'dynamodb');
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const started = await startDynamoDbLocal({ dataDir });
  return { ...started, description: `DynamoDB Local ${memory ? 'in memory' : `at ${dataDir}`}` };
}

async function main(): Promise<void> {
  mkdirSync(LOCAL_DIR, { recursive: true });
  // Several servers can share one engine, each on its own table.
  const tableName = optionValue('--table') ?? LOCAL_TABLE;
  // The dashboard is built on `npm ci`; built again here when its sources or the API description changed since.
  const [engine] = await Promise.all([engineToUse(tableName), ensureDashboardBuilt()]);
  // From here a stop must also stop the engine, even one that comes while the server is still starting.
  // Requests already received are answered in full before the engine they need goes. Later signals
  // are ignored: a Ctrl-C under `npm start` arrives twice (from the terminal, and passed on by npm),
  // and the drain is bounded anyway.
  let server: LocalServer | undefined;
  let stopTimer: (() => Promise<void>) | undefined;
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    console.log(JSON.stringify({ message: `Stopping: answering the requests already received (up to ${DRAIN_MS / 1000} s), then DynamoDB Local` }));
    await server?.drain(DRAIN_MS);
    await stopTimer?.();
    rmSync(ENGINE_FILE, { force: true });
    await engine.stop();
    console.log(JSON.stringify({ message: 'Stopped' }));
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  const table = await ensureTable(engine.endpoint, tableName);
  const baseUrl = `http://${host}:${port}`;
  Object.assign(process.env, localEnvironment(engine.endpoint, tableName, VAULT_KEY_FILE, baseUrl));
  // base_url: the ops CLI tells this server when it changed the table from outside (bin/ops.ts).
  writeJson(ENGINE_FILE, { endpoint: engine.endpoint, table: tableName, pid: process.pid, memory, base_url: baseUrl });

  // Imported only now: the runtime reads its configuration at import, as a Lambda does at cold start,
  // and the local stand-ins are installed before any function module picks its adapters.
  const { installLocalRuntime } = await import('./local/local-runtime.ts');
  // Its key vault is made now rather than at the first processor connection, so a key file that cannot be written or read stops the start.
  const vaultKeyId = installLocalRuntime('default').keyVault.keyId;
  // Only the store this project keeps: an engine named by --dynamodb-endpoint is its operator's to move (`ops tenants shard`).
  if (!memory && !optionValue('--dynamodb-endpoint')) await (await import('./local/store-layout.ts')).settleLocalStoreLayout(table);
  const { boundToLoopback, createLocalServer, startJobTimer } = await import('./local/server.ts');
  const { seedDemoCancelFlow, seedDemoMerchant } = await import('./local/seed.ts');

  const credentials: Credentials = await seedDemoMerchant(readJson<Credentials>(CREDENTIALS_FILE), baseUrl);
  writeJson(CREDENTIALS_FILE, credentials);
  await seedDemoCancelFlow(credentials.merchant_id);

  const listening = createLocalServer({ demoMerchantId: credentials.merchant_id });
  server = listening;
  await new Promise<void>((resolve, reject) => {
    listening.once('error', reject);
    listening.listen(port, host, resolve);
  });

  stopTimer = timer ? startJobTimer() : undefined;

  console.log(
    JSON.stringify(
      {
        message: `Recovery service listening on ${baseUrl} (${engine.description})`,
        credentials_file: CREDENTIALS_FILE,
        vault_key: { file: VAULT_KEY_FILE, id: vaultKeyId },
        cancel_widget_demo: `${baseUrl}/demo/cancel`,
        ...(boundToLoopback(listening) ? {} : { dev_routes: `off: ${host} is not a loopback address, so /__dev/* answers 404 (bind HOST=127.0.0.1 to use them)` }),
        // The key rides in the fragment, which the browser never sends; the app reads it once and drops it.
        dashboard_sign_in: `${baseUrl}/dashboard/#key=${credentials.keys.test_admin}`,
        ...credentials,
      },
      null,
      2,
    ),
  );
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
