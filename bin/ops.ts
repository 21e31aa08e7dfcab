process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
/**
 * `npm run --silent ops -- <command>`: operator commands, printing JSON. Against AWS when TABLE_NAME
 * is set; otherwise against the local store, through the engine a running `npm start` advertises (so
 * it works in --memory mode too), or the on-disk store when no server runs.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ENGINE_FILE, LOCAL_DIR, LOCAL_TABLE, readJson, VAULT_KEY_FILE } from './local/credentials.ts';
import { startDynamoDbLocal, type LocalEngine } from './local/dynamodb-local.ts';
import { ensureTable, localEnvironment } from './local/table.ts';

const USAGE = `Usage:
  ops merchant create [--name NAME] [--plan starter|growth|scale|enterprise] [--trial-ends ISO|none] [--ip-allowlist CIDR,...] [--rate-limit N]
                      [--payment-update-url https://...|none]
  ops merchant update <merchant_id> [same flags]
  ops key create --merchant <merchant_id> --env test|live --scopes read,write,... [--name NAME] [--type secret|publishable] [--expires ISO]
  ops branding get --merchant <merchant_id> --env test|live
  ops branding set --merchant <merchant_id> --env test|live [--name NAME] [--logo-url https://...|none] [--accent-color '#rrggbb'] [--support-email ADDRESS|none]
  ops processors encrypt-secrets
  ops tenants shard [--merchant <merchant_id> --env test|live]
  ops search recount --merchant <merchant_id> --env test|live`;

class UsageError extends Error {}

async function engineReachable(endpoint: string): Promise<boolean> {
  try {
    await fetch(endpoint, { signal: AbortSignal.timeout(2000) });
    return true;
  } catch {
    return false;
  }
}

/**
 * Points the runtime at the right table before any module that reads configuration is imported, and
 * locally installs the local stand-ins (the key vault of .local/, as the server uses).
 * Against a running `npm start`, also returns its URL: it caches key lookups like any instance.
 */
async function connect(): Promise<{ engine?: LocalEngine; server?: string }> {
  if (process.env.TABLE_NAME) {
    // A table named by the environment: AWS's, or a local engine's when the environment says so (a test's).
    if (process.env.RUNTIME_MODE === 'local') await installLocal();
    return {};
  }
  const running = readJson<{ endpoint: string; table?: string; base_url?: string }>(ENGINE_FILE);
  if (running && (await engineReachable(running.endpoint))) {
    await useLocalRuntime(running.endpoint, running.table);
    return { server: running.base_url };
  }
  const dataDir = join(LOCAL_DIR, 'dynamodb');
  mkdirSync(dataDir, { recursive: true });
  const engine = await startDynamoDbLocal({ dataDir });
  await ensureTable(engine.endpoint, LOCAL_TABLE);
  await useLocalRuntime(engine.endpoint);
  return { engine };
}

async function useLocalRuntime(endpoint: string, tableName = LOCAL_TABLE): Promise<void> {
  Object.assign(process.env, localEnvironment(endpoint, tableName, VAULT_KEY_FILE));
  await installLocal();
}

async function installLocal(): Promise<void> {
  const { installLocalRuntime } = await import('./local/local-runtime.ts');
  installLocalRuntime('default');
}

/**
 * A settings change reaches Lambda instances within their key cache's lifetime (docs/decisions.md);
 * the local server is told at once, so a change shows on the next request. A server that no longer
 * answers has no cache left to drop.
 */
async function tellServer(server: string): Promise<void> {
  try {
    const told = await fetch(`${server}/__dev/forget-caches`, { method: 'POST', signal: AbortSignal.timeout(2000) });
    // Off loopback the server has no dev routes (bin/local/server.ts): its caches run out on their own.
    if (!told.ok) console.error(`The server at ${server} did not take the change at once (its dev routes are off); it shows within a minute.`);
  } catch {
    // Stopped since connect(): nothing is cached any more.
  }
}

const FLAGS = {
  name: { type: 'string' },
  plan: { type: 'string' },
  'trial-ends': { type: 'string' },
  'ip-allowlist': { type: 'string' },
  'rate-limit': { type: 'string' },
  'payment-update-url': { type: 'string' },
  'logo-url': { type: 'string' },
  'accent-color': { type: 'string' },
  'support-email': { type: 'string' },
  merchant: { type: 'string' },
  env: { type: 'string' },
  scopes: { type: 'string' },
  type: { type: 'string' },
  expires: { type: 'string' },
} as const;

async function run(argv: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({ args: argv, options: FLAGS, allowPositionals: true, strict: true });
  const [noun, verb, target] = positionals;
  const { runtime } = await import('../shared/runtime.ts');
  const { parseMerchantTerms, parseKeyRequest, parseBrandingChange, parseTenant } = await import('./local/ops-arguments.ts');
  const now = runtime.clock.now();
  if (noun === 'merchant' && verb === 'create' && target === undefined) {
    const { onboardMerchant } = await import('../shared/domain/access/merchant-onboarding.ts');
    const { merchant, keys } = await onboardMerchant(parseMerchantTerms(values), now);
    return {
      merchant_id: merchant.id,
      plan: merchant.plan,
      trial_ends_at: merchant.trial_ends_at,
      ip_allowlist: merchant.ip_allowlist,
      payment_update_url: merchant.payment_update_url,
      keys,
    };
  }
  if (noun === 'merchant' && verb === 'update' && target !== undefined) {
    const { changeMerchantTerms } = await import('../shared/domain/access/merchant-onboarding.ts');
    const merchant = await changeMerchantTerms(target, parseMerchantTerms(values), now);
    return {
      merchant_id: merchant.id,
      plan: merchant.plan,
      rate_limit_override: merchant.rate_limit_override,
      trial_ends_at: merchant.trial_ends_at,
      ip_allowlist: merchant.ip_allowlist,
      payment_update_url: merchant.payment_update_url,
    };
  }
  if (noun === 'key' && verb === 'create' && target === undefined) {
    const { issueApiKey } = await import('../shared/domain/access/api-key-lifecycle.ts');
    const { tenant, request } = parseKeyRequest(values);
    const { record, secret } = await issueApiKey(tenant, request, now);
    return { id: record.id, merchant_id: tenant.merchantId, environment: tenant.environment, type: record.kind, scopes: record.scopes, secret };
  }
  if (noun === 'branding' && (verb === 'get' || verb === 'set') && target === undefined) {
    const { brandingSettings, updateBranding } = await import('../shared/domain/branding/branding-settings.ts');
    const tenant = parseTenant(values);
    return verb === 'get' ? brandingSettings(tenant) : updateBranding(tenant, parseBrandingChange(values), now);
  }
  if (noun === 'processors' && verb === 'encrypt-secrets' && target === undefined) {
    // Connections stored before credentials were sealed; in AWS this needs CREDENTIALS_KEY_ID (stack output CredentialsKeyArn).
    const { keyVault } = await import('../shared/composition/key-vault.ts');
    const { sealPlaintextCredentials } = await import('../shared/domain/ingestion/processor-credentials.ts');
    return sealPlaintextCredentials({ keyVault });
  }
  if (noun === 'tenants' && verb === 'shard' && target === undefined) {
    // Before traffic reaches the code that reads shards (docs/data-model.md, "Moving an existing table"); without a tenant, every tenant (a Scan).
    const { moveToShards } = await import('../shared/store/shard-migration.ts');
    return moveToShards(values.merchant === undefined && values.env === undefined ? undefined : parseTenant(values));
  }
  if (noun === 'search' && verb === 'recount' && target === undefined) {
    // With the event stream paused: rebuilds a tenant's search counts from its entries (docs/data-model.md, "Existing tables").
    const { recountSearchIndex } = await import('../shared/store/customer-search.ts');
    return recountSearchIndex(parseTenant(values));
  }
  throw new UsageError(USAGE);
}

async function main(): Promise<void> {
  const { engine, server } = await connect();
  try {
    const result = await run(process.argv.slice(2));
    if (server) await tellServer(server);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await engine?.stop();
  }
}

main().catch((error: Error) => {
  const code = error instanceof UsageError || error instanceof RangeError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ? 'usage'
    : ((error as { code?: string }).code ?? 'error');
  process.stderr.write(`${JSON.stringify({ error: { code, message: error.message } })}\n`);
  process.exit(code === 'usage' ? 2 : 1);
});
