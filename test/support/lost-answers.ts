import { vi } from 'vitest';
import { runtime } from '../../shared/runtime.ts';

/**
 * The first matching write is applied and its answer lost: the SDK sends the same request again, which
 * now meets our own write (a conditional put or update fails its condition, as DynamoDB answers a
 * write it already applied). The spy records the requests sent; restore it when done.
 */
export function resendAfterLostAnswer(matches: (command: unknown) => boolean) {
  const send = runtime.db.send.bind(runtime.db);
  let resent = false;
  return vi.spyOn(runtime.db, 'send').mockImplementation((async (command: any, ...rest: any[]) => {
    if (resent || !matches(command)) return send(command, ...rest);
    resent = true;
    await send(command, ...rest);
    return send(command, ...rest);
  }) as any);
}
