/**
 * The signed-in API key: held in memory and in sessionStorage (so a reload keeps the tab signed in,
 * and closing it forgets the key), never in localStorage or in a URL that reaches a server. A sign-in
 * link carries the key in the fragment (`#key=...`), which browsers never send; it is read once and
 * taken out of the address bar and the history entry.
 */
const STORAGE_KEY = 'recovery-dashboard-key';

let current: string | null = null;

export function keyFromFragment(): string | null {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const key = fragment.get('key');
  if (key === null) return null;
  history.replaceState(history.state, '', location.pathname + location.search);
  return key.trim() || null;
}

export function storedKey(): string | null {
  current ??= sessionStorage.getItem(STORAGE_KEY);
  return current;
}

export function keepKey(key: string): void {
  current = key;
  sessionStorage.setItem(STORAGE_KEY, key);
}

export function forgetKey(): void {
  current = null;
  sessionStorage.removeItem(STORAGE_KEY);
}
