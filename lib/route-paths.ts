import type { Route } from '../shared/routes.ts';

const isParameter = (segment: string): boolean => segment.startsWith('{');

/** Every resource path the routes need, parents included: '/v1/a/{id}/b' → '/v1', '/v1/a', '/v1/a/{id}', '/v1/a/{id}/b'. */
export function resourcePaths(routes: readonly Route[]): string[] {
  const paths = new Set<string>();
  for (const route of routes) {
    const segments = route.path.split('/').filter(Boolean);
    segments.forEach((_, i) => paths.add(`/${segments.slice(0, i + 1).join('/')}`));
  }
  return [...paths].sort();
}

/**
 * API Gateway refuses, at deploy time only, sibling path parameters with different names
 * ('/customers/{id}' next to '/customers/{customerId}/payments') and a parameter at the root next to
 * the fallback's '{proxy+}'. Checking here turns a failed deployment into a failed synth.
 */
export function assertDeployablePaths(routes: readonly Route[]): void {
  const parameterByParent = new Map<string, string>();
  for (const path of resourcePaths(routes)) {
    const cut = path.lastIndexOf('/');
    const parent = path.slice(0, cut) || '/';
    const segment = path.slice(cut + 1);
    if (!isParameter(segment)) continue;
    if (parent === '/') throw new Error(`Route path ${path} starts with a parameter, which would collide with the fallback's /{proxy+}`);
    const existing = parameterByParent.get(parent);
    if (existing !== undefined && existing !== segment) {
      throw new Error(`Routes under ${parent} use two parameter names, ${existing} and ${segment}; API Gateway allows one per level`);
    }
    parameterByParent.set(parent, segment);
  }
  const seen = new Set<string>();
  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) throw new Error(`Two routes for ${key}`);
    seen.add(key);
  }
}
