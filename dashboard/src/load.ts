import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api/client.ts';

export type Loaded<T> = { state: 'loading' } | { state: 'error'; error: ApiError } | { state: 'ready'; data: T };

const asApiError = (error: unknown): ApiError =>
  error instanceof ApiError ? error : new ApiError(error instanceof Error ? error.message : String(error), 0, 'client_error', null, null);

/**
 * Loads a view's data whenever `key` changes (a new page, filter or id); `reload` fetches again after
 * an action. An answer to an older key that arrives late is dropped.
 */
export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> & { reload: () => void } {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const [round, setRound] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const ticket = ++latest.current;
    setLoaded((previous) => (previous.state === 'ready' && round > 0 ? previous : { state: 'loading' }));
    load().then(
      (data) => ticket === latest.current && setLoaded({ state: 'ready', data }),
      (error: unknown) => ticket === latest.current && setLoaded({ state: 'error', error: asApiError(error) }),
    );
    // `load` closes over the values `key` is made of.
  }, [key, round]);
  const reload = useCallback(() => setRound((value) => value + 1), []);
  return { ...loaded, reload };
}

/** An action's progress: idle, running, or its refusal (shown next to the control). */
export function useAction() {
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const run = useCallback(async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    setRunning(true);
    setError(null);
    try {
      return await action();
    } catch (caught) {
      setError(asApiError(caught));
      return undefined;
    } finally {
      setRunning(false);
    }
  }, []);
  return { running, error, run, clear: () => setError(null) };
}
