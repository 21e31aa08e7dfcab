import { runtime } from '../../shared/runtime.ts';

/** Items DynamoDB read for the requests sent while `work` runs (what a Query scanned, what a batch or a get returned). */
export async function itemsRead(work: () => Promise<unknown>): Promise<number> {
  let read = 0;
  const name = `itemsRead${Math.random()}`;
  runtime.db.middlewareStack.add(
    (next: (args: any) => Promise<any>) => async (args: any) => {
      const result = await next(args);
      const output = result.output ?? {};
      if (typeof output.ScannedCount === 'number') read += output.ScannedCount;
      else if (output.Responses) read += Object.values(output.Responses as Record<string, unknown[]>).reduce((sum, items) => sum + items.length, 0);
      else if (output.Item) read += 1;
      return result;
    },
    { step: 'initialize', name },
  );
  try {
    await work();
  } finally {
    runtime.db.middlewareStack.remove(name);
  }
  return read;
}
