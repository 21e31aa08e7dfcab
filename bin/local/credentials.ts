import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Local state (engine data, credentials); LOCAL_DIR moves it, so test runs never touch a developer's .local/. */
export const LOCAL_DIR = process.env.LOCAL_DIR ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..', '.local');
export const CREDENTIALS_FILE = join(LOCAL_DIR, 'credentials.json');
/** Where a running `npm start` advertises its engine, so the ops CLI can use the same data. */
export const ENGINE_FILE = join(LOCAL_DIR, 'engine.json');
export const LOCAL_TABLE = 'recovery-local';
/** The local key vault's key, which seals processor credentials as KMS does in AWS; made on first use. */
export const VAULT_KEY_FILE = join(LOCAL_DIR, 'vault.key');

export interface Credentials {
  base_url: string;
  edge_url: string;
  merchant_id: string;
  keys: Record<string, string>;
}

export function readJson<T>(file: string): T | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

export function writeJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
}
