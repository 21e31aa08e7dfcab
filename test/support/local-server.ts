import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../bin/local/dynamodb-local.ts';
import { endGroup, processesWithVariable, spawnInGroup, type RunningProcess } from '../../bin/local/process-groups.ts';
import type { Credentials } from '../../bin/local/credentials.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
/** Marks every process one server starts (tsx, node, its DynamoDB Local), so a test can check none is left. */
const SERVER_VARIABLE = 'RECOVERY_LOCAL_SERVER';

export interface RunningServer {
  baseUrl: string;
  credentials: Credentials;
  /** A merchant API request with the demo merchant's test admin key; the JSON body answered. */
  api: (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<{ status: number; body: any }>;
  /** Any request as sent (a webhook's exact bytes, no key); the JSON body answered, if any. */
  send: (method: string, path: string, body: string | undefined, headers: Record<string, string>) => Promise<{ status: number; body: any }>;
  /** A dev route (`/__dev/<path>`); throws unless it answers 200. */
  dev: (method: string, path: string, body?: unknown) => Promise<any>;
  /** Its LOCAL_DIR (removed when it stops). */
  localDir: string;
  output: () => string;
  ops: (args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>;
  /** The processes of this server still running: tsx, the server and its DynamoDB Local while it runs. */
  processes: () => RunningProcess[];
  /**
   * SIGTERM, as a process manager or `kill` stops the server (with `interrupt`, Ctrl-C: SIGINT to every
   * process of the group); the whole group is killed if it hangs. How the group's leader ended: its
   * exit code, or the signal that ended it.
   */
  stop: (options?: { interrupt?: boolean }) => Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `npm start -- --memory [args]` as a developer runs it, on a free port, with its local state in a
 * temp dir: through tsx as the npm script does, or `viaNpm` through npm itself.
 */
export async function startLocalServer(extraEnv: Record<string, string> = {}, args: readonly string[] = [], launch: { viaNpm?: boolean } = {}): Promise<RunningServer> {
  const port = await freePort();
  const localDir = mkdtempSync(join(tmpdir(), 'recovery-e2e-'));
  const marker = randomUUID();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), LOCAL_DIR: localDir, LOG_LEVEL: 'info', [SERVER_VARIABLE]: marker, ...extraEnv };
  delete env.TABLE_NAME;
  delete env.RUNTIME_MODE;
  delete env.AWS_ENDPOINT_URL_DYNAMODB;
  const [command, ...commandArgs] = launch.viaNpm ? ['npm', 'start', '--', '--memory', ...args] : [TSX, 'bin/start.ts', '--memory', ...args];
  const child = spawnInGroup(command!, commandArgs, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async (options: { interrupt?: boolean } = {}) => {
    await endGroup(child, options);
    rmSync(localDir, { recursive: true, force: true });
    return { code: child.exitCode, signal: child.signalCode };
  };
  for (let waited = 0; ; waited += 200) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`local server exited: ${output}`);
    if (waited > 60_000) {
      await stop();
      throw new Error(`local server did not start: ${output}`);
    }
    try {
      await fetch(`${baseUrl}/__dev/clock`);
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  const credentials = JSON.parse(readFileSync(join(localDir, 'credentials.json'), 'utf8')) as Credentials;
  const ops = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const cli = spawnInGroup(TSX, ['bin/ops.ts', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      cli.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      cli.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      cli.on('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    });
  const send = async (method: string, path: string, body: string | undefined, headers: Record<string, string>) => {
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as any) };
  };
  const api = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    send(method, path, body === undefined ? undefined : JSON.stringify(body), { Authorization: `Bearer ${credentials.keys.test_admin}`, 'Content-Type': 'application/json', ...headers });
  const dev = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${baseUrl}/__dev/${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
    if (response.status !== 200) throw new Error(`${method} /__dev/${path} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as any;
  };
  return {
    baseUrl,
    credentials,
    api,
    send,
    dev,
    localDir,
    output: () => output,
    ops,
    processes: () => processesWithVariable(SERVER_VARIABLE, marker),
    stop,
  };
}
