import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { runtime } from '../../shared/composition.ts';
import { clearInstanceCaches } from '../../shared/store/instance-cache.ts';
import { apiDescriptionRoute } from './api-description.ts';
import { drainCompletions } from './completion-runner.ts';
import { dashboardRoute } from './dashboard.ts';
import { demoPage, widgetScript } from './demo.ts';
import { dispatch } from './dispatch.ts';
import { drainEvents } from './event-runner.ts';
import { runDueJobs } from './job-runner.ts';
import type { HttpRequest } from './lambda-event.ts';

const MAX_BODY_BYTES = 10 * 1024 * 1024; // API Gateway's payload limit

class PayloadTooLarge extends Error {}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Past the limit the rest is read and dropped, not cut off: a reset connection would lose the 413.
      if (size > MAX_BODY_BYTES) reject(new PayloadTooLarge('The request body is larger than 10 MB, the most API Gateway accepts'));
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

/** Routes that exist only on the local server: they move the shared clock and show what local adapters did. */
async function devRoute(request: HttpRequest, response: ServerResponse): Promise<boolean> {
  const local = runtime.local;
  if (!request.path.startsWith('/__dev/') || !local) return false;
  const { clock } = local;
  const route = `${request.method} ${request.path}`;
  if (route === 'GET /__dev/clock') {
    sendJson(response, 200, { now: clock.now().toISOString() });
  } else if (route === 'POST /__dev/clock') {
    let seconds: unknown;
    try {
      seconds = JSON.parse(request.body.toString('utf8') || '{}').advance_seconds;
    } catch {
      seconds = undefined;
    }
    if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
      sendJson(response, 400, { error: { code: 'invalid_request', message: 'advance_seconds must be a non-negative number', param: 'advance_seconds' } });
    } else {
      sendJson(response, 200, { now: clock.advance(seconds).toISOString() });
    }
  } else if (route === 'POST /__dev/run-due') {
    // Events first (they may schedule work), then due jobs and queued cancel completions, then the events those wrote.
    const before = await drainEvents();
    const ran = await runDueJobs();
    const completions = await drainCompletions();
    const after = await drainEvents();
    sendJson(response, 200, { now: clock.now().toISOString(), ran, completions, events_delivered: before.events + after.events });
  } else if (route === 'GET /__dev/outbox') {
    sendJson(response, 200, { data: local.outbox.entries() });
  } else if (route === 'POST /__dev/forget-caches') {
    // The ops CLI changed the table from another process: read it again, as a cold instance would.
    clearInstanceCaches();
    sendJson(response, 200, { forgotten: true });
  } else {
    sendJson(response, 404, { error: { code: 'resource_not_found', message: `No dev route ${route}` } });
  }
  return true;
}

/**
 * Delivers events, fires due jobs and replays queued cancel completions every second, as the table
 * stream, EventBridge Scheduler and the SQS event source would; `--no-timer` leaves all to /__dev/run-due.
 */
export function startJobTimer(intervalMs = 1_000): () => void {
  let running = false;
  const timer = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      await drainEvents();
      await runDueJobs();
      await drainCompletions();
      await drainEvents();
    } catch (error) {
      console.error(error);
    } finally {
      running = false;
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** The cancel widget and its demo page, served by the local server only (in AWS the merchant hosts the script). */
function widgetRoute(request: HttpRequest, response: ServerResponse, options: LocalServerOptions): boolean {
  if (request.method !== 'GET') return false;
  if (request.path === '/cancel-widget.js') {
    response.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache', 'Access-Control-Allow-Origin': '*' });
    response.end(widgetScript());
    return true;
  }
  if (request.path === '/demo/cancel') {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    response.end(demoPage(request.query, options.demoMerchantId));
    return true;
  }
  return false;
}

export interface LocalServerOptions {
  /** The seeded demo merchant the demo page's widget runs for, unless the page's query names another. */
  demoMerchantId?: string;
}

export function createLocalServer(options: LocalServerOptions = {}): Server {
  return createServer(async (incoming, response) => {
    try {
      const url = new URL(incoming.url ?? '/', 'http://localhost');
      const request: HttpRequest = {
        method: incoming.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: incoming.headers,
        body: await readBody(incoming),
        sourceIp: incoming.socket.remoteAddress ?? '127.0.0.1',
      };
      if (await devRoute(request, response)) return;
      if (widgetRoute(request, response, options)) return;
      if (dashboardRoute(request, response)) return;
      if (await apiDescriptionRoute(request, response)) return;
      const result = await dispatch(request);
      response.writeHead(result.status, result.headers);
      response.end(result.body);
    } catch (error) {
      // Only the server's own plumbing fails here; handler faults already came back as 500 envelopes.
      if (response.headersSent) response.destroy();
      else if (error instanceof PayloadTooLarge) {
        const requestId = randomUUID();
        response.setHeader('X-Request-Id', requestId);
        response.setHeader('Connection', 'close');
        sendJson(response, 413, { error: { code: 'payload_too_large', message: error.message, request_id: requestId } });
      }
      else {
        console.error(error);
        sendJson(response, 500, { error: { code: 'internal_error', message: 'The local server failed to handle the request' } });
      }
    }
  });
}
