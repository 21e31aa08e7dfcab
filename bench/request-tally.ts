/**
 * The DynamoDB calls one cold start makes, recorded by a forwarding proxy in front of the engine (and
 * the other AWS calls, counted by the stub that answers them): the cold-start bench starts every
 * bundle through it before the timed rounds, so the hop is never part of a timed sample. A first
 * request's calls decide most of its time (docs/decisions.md,
 * "Cold start held to a floor making the same calls"), so each
 * function's floor makes the very calls it recorded, in the same rounds.
 */
import { createServer, request as forward } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FirstRequestCalls {
  /** DynamoDB requests by operation, e.g. { GetItem: 2, Query: 1 }. */
  dynamodb: Record<string, number>;
  /** Requests to every other AWS API (scheduler, queue, mail), answered by the stub. */
  other_aws: number;
}

/** One DynamoDB call as sent: its operation and its request body, which is the low-level client's input. */
export interface Call {
  operation: string;
  input: unknown;
}

/** A call the proxy relayed, with when it was sent and answered (ms, one clock). */
export interface RelayedCall extends Call {
  sent: number;
  answered: number;
}

/** 'DynamoDB_20120810.GetItem' → 'GetItem'. */
const operationOf = (target: string) => target.slice(target.lastIndexOf('.') + 1) || 'unknown';

/**
 * The calls in rounds: a round is the calls in flight together, and the next one starts with the
 * first call sent after every call of the round before had its answer.
 */
export function callRounds(calls: readonly RelayedCall[]): Call[][] {
  const rounds: Call[][] = [];
  let roundAnswered = -Infinity;
  for (const call of [...calls].sort((a, b) => a.sent - b.sent)) {
    if (call.sent >= roundAnswered) rounds.push([]);
    roundAnswered = call.sent >= roundAnswered ? call.answered : Math.max(roundAnswered, call.answered);
    rounds.at(-1)!.push({ operation: call.operation, input: call.input });
  }
  return rounds;
}

/** 'GetItem → UpdateItem + Query' for the summary's tables. */
export const describeRounds = (rounds: readonly Call[][]): string => rounds.map((round) => round.map((call) => call.operation).join(' + ')).join(' → ') || 'none';

/** Counts per operation, in first-seen order. */
export function tallyOperations(targets: readonly string[]): Record<string, number> {
  const tally: Record<string, number> = {};
  for (const target of targets) {
    const operation = operationOf(target);
    tally[operation] = (tally[operation] ?? 0) + 1;
  }
  return tally;
}

/**
 * A proxy to the engine that remembers every request (target, body, timing) since the last `take()`;
 * `takeCausedBy(id)` takes only the requests marked with `x-recorded-for: id` (bench/recording-preload.mjs).
 */
export async function countingProxy(engine: string) {
  const upstream = new URL(engine);
  let seen: { target: string; call: RelayedCall; cause?: string }[] = [];
  const server = createServer((incoming, outgoing) => {
    const target = String(incoming.headers['x-amz-target'] ?? '');
    const call: RelayedCall = { operation: operationOf(target), input: {}, sent: performance.now(), answered: Infinity };
    const cause = incoming.headers['x-recorded-for'];
    seen.push({ target, call, cause: typeof cause === 'string' ? cause : undefined });
    const body: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => body.push(chunk));
    incoming.on('end', () => {
      const text = Buffer.concat(body).toString('utf8');
      call.input = text ? JSON.parse(text) : {};
    });
    const relay = forward(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.on('end', () => (call.answered = performance.now()));
        answer.pipe(outgoing);
      },
    );
    relay.on('error', () => {
      // The engine went away mid-request: the probe sees a failed call, the bench goes on.
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
    incoming.pipe(relay);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** The operations seen since the last call, and those calls in rounds; then a fresh start. */
    take: () => {
      const taken = { operations: tallyOperations(seen.map((request) => request.target)), rounds: callRounds(seen.map((request) => request.call)) };
      seen = [];
      return taken;
    },
    /** The calls marked as made for `cause`, in rounds; the others are kept. */
    takeCausedBy: (cause: string) => {
      const taken = seen.filter((request) => request.cause === cause);
      seen = seen.filter((request) => request.cause !== cause);
      return callRounds(taken.map((request) => request.call));
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** '4: GetItem, UpdateItem, Query ×2 · 1 other' for the summary's tables; '–' when not counted. */
export function describeCalls(calls: FirstRequestCalls | undefined): string {
  if (!calls) return '–';
  const operations = Object.entries(calls.dynamodb);
  const total = operations.reduce((sum, [, count]) => sum + count, 0);
  const named = operations.map(([operation, count]) => (count > 1 ? `${operation} ×${count}` : operation)).join(', ');
  const dynamodb = total === 0 ? '0' : `${total}: ${named}`;
  return calls.other_aws > 0 ? `${dynamodb} · ${calls.other_aws} other` : dynamodb;
}
