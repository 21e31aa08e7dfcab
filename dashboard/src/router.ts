import { useEffect, useState } from 'preact/hooks';

/**
 * A small history router: paths under /dashboard/, with the view's filters in the query string so a
 * filtered list can be reloaded, shared or opened in a new tab. Only same-app links are intercepted.
 */
export const BASE = '/dashboard';

export interface Location {
  path: string;
  query: URLSearchParams;
}

const read = (): Location => ({ path: location.pathname.slice(BASE.length) || '/', query: new URLSearchParams(location.search) });

const listeners = new Set<() => void>();

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = to.startsWith(BASE) ? to : `${BASE}${to}`;
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  for (const listener of listeners) listener();
  if (!options.replace) window.scrollTo(0, 0);
}

export function useLocation(): Location {
  const [current, setCurrent] = useState(read);
  useEffect(() => {
    const update = () => setCurrent(read());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return current;
}

/** Follows in-app links without a page load; a modified click (new tab, download) is left to the browser. */
export function interceptLinks(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const anchor = (event.target as Element | null)?.closest('a');
  if (!anchor || anchor.target || anchor.origin !== location.origin || !anchor.pathname.startsWith(`${BASE}/`)) return;
  // A link within the page (the skip link, an error summary's link to its field) is the browser's.
  if (anchor.hash && anchor.pathname === location.pathname && anchor.search === location.search) return;
  event.preventDefault();
  navigate(anchor.pathname + anchor.search);
}

/** `/payments/:id` against a path: the parameters, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const names: string[] = [];
  const source = pattern.replace(/:(\w+)/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  const found = new RegExp(`^${source}/?$`).exec(path);
  if (!found) return null;
  return Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(found[index + 1]!)]));
}

/** A link target under the app with the given query, empty values dropped. */
export function href(path: string, query: Record<string, string | number | undefined | null> = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  const text = search.toString();
  return `${BASE}${path}${text ? `?${text}` : ''}`;
}
