import { optionalEnv } from '../../shared/config.ts';

/**
 * Lambda invocations the local runners make side by side (LOCAL_CONCURRENCY, default 1: one after
 * another, in order): due jobs, each its own invocation in AWS, and the stream's batches, one per
 * customer's lane. The chaos runs raise it: their time is waiting (deadlines, backoffs), which overlaps.
 */
export const LOCAL_CONCURRENCY = Math.max(1, Number(optionalEnv('LOCAL_CONCURRENCY') ?? 1));

/**
 * Runs `work` for every item, at most `limit` at a time, the items of one lane one after another in
 * the order given: what AWS runs side by side (each scheduled job its own Lambda invocation, each
 * processor's delivery its own request) runs side by side here, and what must keep its order (one
 * payment's jobs, one customer's failures) keeps it. A limit of 1 runs everything in the order given.
 */
export async function inLanes<T>(items: readonly T[], laneOf: (item: T) => string, limit: number, work: (item: T) => Promise<unknown>): Promise<void> {
  const waiting = limit > 1 ? lanesOf(items, laneOf) : [[...items]];
  const worker = async () => {
    for (let lane = waiting.shift(); lane; lane = waiting.shift()) for (const item of lane) await work(item);
  };
  await Promise.all(Array.from({ length: Math.min(limit, waiting.length) }, worker));
}

/** The items by lane, each lane in the order given, the lanes in the order they first appear. */
export function lanesOf<T>(items: readonly T[], laneOf: (item: T) => string): T[][] {
  const lanes = new Map<string, T[]>();
  for (const item of items) {
    const key = laneOf(item);
    const lane = lanes.get(key);
    if (lane) lane.push(item);
    else lanes.set(key, [item]);
  }
  return [...lanes.values()];
}
