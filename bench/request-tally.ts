/**
 * The DynamoDB calls one cold start makes, counted by a forwarding proxy in front of the engine (and
 * the other AWS calls, by the stub that answers them): the cold-start bench starts every bundle once
 * more through it after the timed rounds, so the hop is never part of a timed sample. A first
 * request's calls decide most of its time (docs/decisions.md, "Bundles and cold start").
 */
import { createServer, request as forward } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FirstRequestCalls {
  /** DynamoDB requests by operation, e.g. { GetItem: 2, Query: 1 }. */
  dynamodb: Record<string, number>;
  /** Requests to every other AWS API (scheduler, queue, mail), answered by the stub. */
  other_aws: number;
}

/** 'DynamoDB_20120810.GetItem' → 'GetItem'; counts per operation, in first-seen order. */
export function tallyOperations(targets: readonly string[]): Record<string, number> {
  const tally: Record<string, number> = {};
  for (const target of targets) {
    const operation = target.slice(target.lastIndexOf('.') + 1) || 'unknown';
    tally[operation] = (tally[operation] ?? 0) + 1;
  }
  return tally;
}

/** A proxy to the engine that remembers the X-Amz-Target of every request since the last `take()`. */
export async function countingProxy(engine: string) {
  const upstream = new URL(engine);
  let seen: string[] = [];
  const server = createServer((incoming, outgoing) => {
    seen.push(String(incoming.headers['x-amz-target'] ?? ''));
    const relay = forward(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
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
    /** The operations seen since the last call, and a fresh start. */
    take: () => {
      const taken = tallyOperations(seen);
      seen = [];
      return taken;
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
