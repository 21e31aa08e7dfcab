import { existsSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { DASHBOARD_HEADERS, DASHBOARD_PATH } from '../../lib/dashboard-headers.ts';
import { DASHBOARD_DIST } from '../dashboard-build.ts';
import type { HttpRequest } from './lambda-event.ts';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/**
 * The merchant dashboard (dashboard/dist) at /dashboard/, as CloudFront serves it: hashed assets
 * cached for good, every other path the app's index.html (its router reads the path), all under the
 * deployed security headers. `/` leads there.
 */
export function dashboardRoute(request: HttpRequest, response: ServerResponse): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  if (request.path === '/' || request.path === DASHBOARD_PATH) {
    response.writeHead(302, { Location: `${DASHBOARD_PATH}/` });
    response.end();
    return true;
  }
  if (!request.path.startsWith(`${DASHBOARD_PATH}/`)) return false;
  const relative = normalize(request.path.slice(DASHBOARD_PATH.length + 1));
  if (relative.startsWith('assets/')) {
    const file = join(DASHBOARD_DIST, relative);
    if (relative.includes('..') || !existsSync(file)) {
      response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', ...DASHBOARD_HEADERS });
      response.end('Not found');
    } else {
      response.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'public, max-age=31536000, immutable', ...DASHBOARD_HEADERS });
      response.end(request.method === 'HEAD' ? undefined : readFileSync(file));
    }
    return true;
  }
  const index = join(DASHBOARD_DIST, 'index.html');
  if (!existsSync(index)) {
    response.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' });
    response.end('The dashboard is not built: npm start builds it, or run npx tsx bin/dashboard-build.ts');
    return true;
  }
  response.writeHead(200, { 'Content-Type': TYPES['.html']!, 'Cache-Control': 'no-cache', ...DASHBOARD_HEADERS });
  response.end(request.method === 'HEAD' ? undefined : readFileSync(index));
  return true;
}
