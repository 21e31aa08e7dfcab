/**
 * An adapter built when it is first used rather than at import, for the ports a function imports but
 * may not call on a given request (a campaign read never schedules; a session completion queues only
 * when storing it fails): building an AWS client costs a cold start 1-2 ms whether or not it sends
 * anything. The adapter's configuration is still read at import by the caller, so a missing variable
 * fails the cold start as before; only the construction waits.
 */
export function builtOnFirstUse<T extends object>(build: () => T): T {
  let built: T | undefined;
  return new Proxy({} as T, {
    get(_target, property) {
      built ??= build();
      const value: unknown = Reflect.get(built, property);
      return typeof value === 'function' ? value.bind(built) : value;
    },
  });
}
