import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../bin/local/dynamodb-local.ts';
import type { Credentials } from '../../bin/local/credentials.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');

export interface RunningServer {
  baseUrl: string;
  credentials: Credentials;
  output: () => string;
  ops: (args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>;
  stop: () => Promise<void>;
}

/** `npm start -- --memory [args]` as a developer runs it, on a free port, with its local state in a temp dir. */
export async function startLocalServer(extraEnv: Record<string, string> = {}, args: readonly string[] = []): Promise<RunningServer> {
  const port = await freePort();
  const localDir = mkdtempSync(join(tmpdir(), 'recovery-e2e-'));
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), LOCAL_DIR: localDir, LOG_LEVEL: 'info', ...extraEnv };
  delete env.TABLE_NAME;
  delete env.RUNTIME_MODE;
  delete env.AWS_ENDPOINT_URL_DYNAMODB;
  const child: ChildProcess = spawn(TSX, ['bin/start.ts', '--memory', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let waited = 0; ; waited += 200) {
    if (child.exitCode !== null) throw new Error(`local server exited: ${output}`);
    if (waited > 60_000) {
      // Stopped, so its DynamoDB Local does not outlive the test run.
      child.kill('SIGTERM');
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
      const cli = spawn(TSX, ['bin/ops.ts', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      cli.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      cli.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      cli.on('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    });
  return {
    baseUrl,
    credentials,
    output: () => output,
    ops,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(localDir, { recursive: true, force: true });
    },
  };
}
