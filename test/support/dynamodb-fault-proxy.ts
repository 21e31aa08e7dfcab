import { createServer, request as forward, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { FaultDraws } from '../../shared/adapters/local/port-faults.ts';

/**
 * An HTTP proxy between the service and DynamoDB Local that fails a chosen share of requests the
 * ways DynamoDB does in AWS (docs/faults.md):
 * - `throttled`: 400 ProvisionedThroughputExceededException or ThrottlingException, nothing applied;
 * - `internal`: 500 InternalServerError, nothing applied;
 * - `slow`: held past the client's deadline, then applied (the client has given up and tried again);
 * - `lost`: applied, and the connection dropped before the answer: the write is stored, the client never learns it.
 * Seeded, and drawn on each request's content and try (FaultDraws), not on its place in the order of
 * arrival: the same requests meet the same faults however concurrent callers interleave them.
 */
export type FaultKind = 'throttled' | 'internal' | 'slow' | 'lost';
export const FAULT_KINDS: readonly FaultKind[] = ['throttled', 'internal', 'slow', 'lost'];

export interface FaultProxyOptions {
  /** The engine behind the proxy. */
  target: string;
  seed: number;
  /** Share of requests that meet a fault, 0 to 1. */
  rate: number;
  /** Operations that may fail (`TransactWriteItems`, `Query`, …); all of them unless given. */
  operations?: readonly string[];
  kinds?: readonly FaultKind[];
  /**
   * Requests passed on untouched, uncounted and without a draw (the sequences stay those of the
   * other requests): ones whose body matches. For the local stand-ins of other AWS services that keep
   * their state in the table, whose failures are injected at their ports instead.
   */
  spared?: RegExp;
  /** How long a `slow` request is held before it is forwarded: past the client's request deadline. */
  slowMs: number;
}

export interface FaultProxy {
  endpoint: string;
  /** Changes the share of requests that fail (0: a plain proxy); the draws stay the same. */
  setRate(rate: number): void;
  /** Requests seen and faults injected, by operation. */
  stats(): Record<string, { requests: number } & Partial<Record<FaultKind, number>>>;
  close(): Promise<void>;
}

const DYNAMODB_ERROR = 'application/x-amz-json-1.0';

function errorAnswer(response: ServerResponse, status: number, type: string, message: string): void {
  response.writeHead(status, { 'Content-Type': DYNAMODB_ERROR, 'x-amzn-RequestId': `fault-${Date.now()}` });
  response.end(JSON.stringify({ __type: type, message }));
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** Sends the request on to the engine; resolves with its answer, read in full. */
function send(target: URL, incoming: IncomingMessage, body: Buffer): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const outgoing = forward(
      { hostname: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers: { ...incoming.headers, host: target.host } },
      async (answer) => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: await readBody(answer) }),
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** The engine's answer handed back as it came (unless the client gave up meanwhile); a failure to reach it drops the connection. */
async function pass(response: ServerResponse, answered: () => ReturnType<typeof send>): Promise<void> {
  try {
    const answer = await answered();
    if (response.destroyed) return;
    response.writeHead(answer.status, answer.headers);
    response.end(answer.body);
  } catch {
    response.socket?.destroy();
  }
}

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const target = new URL(options.target);
  const kinds = options.kinds ?? FAULT_KINDS;
  let rate = options.rate;
  const draws = new FaultDraws(options.seed);
  const stats: Record<string, { requests: number } & Partial<Record<FaultKind, number>>> = {};
  const sockets = new Set<Socket>();
  const server: Server = createServer(async (incoming, response) => {
    const body = await readBody(incoming);
    if (options.spared?.test(body.toString('utf8'))) {
      await pass(response, () => send(target, incoming, body));
      return;
    }
    const operation = String(incoming.headers['x-amz-target'] ?? '').split('.').pop() || 'unknown';
    const counted = (stats[operation] ??= { requests: 0 });
    counted.requests += 1;
    // Drawn every time, so changing the rate or the operations does not change another request's draw.
    const [chance, pick] = draws.draw(`${operation} ${body.toString('utf8')}`);
    const eligible = !options.operations || options.operations.includes(operation);
    const fault = eligible && chance < rate ? kinds[Math.floor(pick * kinds.length)] : undefined;
    if (fault) counted[fault] = (counted[fault] ?? 0) + 1;
    try {
      if (fault === 'throttled') {
        const type = pick * kinds.length - Math.floor(pick * kinds.length) < 0.5 ? 'ProvisionedThroughputExceededException' : 'ThrottlingException';
        errorAnswer(response, 400, `com.amazonaws.dynamodb.v20120810#${type}`, 'The level of configured provisioned throughput for the table was exceeded');
        return;
      }
      if (fault === 'internal') {
        errorAnswer(response, 500, 'com.amazonaws.dynamodb.v20120810#InternalServerError', 'Internal server error');
        return;
      }
      if (fault === 'slow') await new Promise((resolve) => setTimeout(resolve, options.slowMs));
      if (fault !== 'lost') {
        await pass(response, () => send(target, incoming, body));
        return;
      }
      await send(target, incoming, body);
      response.socket?.destroy();
    } catch {
      response.socket?.destroy();
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    setRate: (next) => (rate = next),
    stats: () => structuredClone(stats),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
