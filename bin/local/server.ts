import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FaultSetting } from '../../shared/adapters/local/port-faults.ts';
import { runtime } from '../../shared/runtime.ts';
import { classifyAddress } from '../../shared/model/address-policy.ts';
import { clearInstanceCaches } from '../../shared/store/instance-cache.ts';
import { apiDescriptionRoute } from './api-description.ts';
import { drainCompletions } from './completion-runner.ts';
import { dashboardRoute } from './dashboard.ts';
import { demoPage, widgetScript } from './demo.ts';
import { dispatch } from './dispatch.ts';
import { drainEvents } from './event-runner.ts';
import { runDueJobs } from './job-runner.ts';
import type { HttpRequest } from './lambda-event.ts';
import { localRuntime } from './local-runtime.ts';

// API Gateway's own limits for a regional REST API, which it answers itself before any function runs.
const MAX_BODY_BYTES = 10 * 1024 * 1024;
const MAX_URL_CHARACTERS = 10_240;
const MAX_REQUEST_LINE_AND_HEADER_BYTES = 10_240;
/** Node refuses larger headers before the handler sees them; set above API Gateway's limit so the handler answers it. */
const MAX_PARSED_HEADER_BYTES = 64 * 1024;

class PayloadTooLarge extends Error {}

interface Refusal {
  status: number;
  code: 'payload_too_large' | 'invalid_request';
  message: string;
}

const HEADERS_TOO_LARGE: Refusal = {
  status: 431,
  code: 'invalid_request',
  message: `The request line and headers are larger than ${MAX_REQUEST_LINE_AND_HEADER_BYTES.toLocaleString('en')} bytes, the most API Gateway accepts`,
};

/** A request over API Gateway's URL or header limits, answered with its status and DEFAULT_4XX's envelope (lib/gateway-responses.ts). */
function oversizedRequest(incoming: IncomingMessage): Refusal | undefined {
  const url = incoming.url ?? '/';
  if (url.length > MAX_URL_CHARACTERS) {
    return { status: 414, code: 'invalid_request', message: `The request URL is longer than ${MAX_URL_CHARACTERS.toLocaleString('en')} characters, the most API Gateway accepts` };
  }
  // Node decodes header bytes as latin1, so each character is one byte as sent.
  const requestLine = Buffer.byteLength(`${incoming.method} ${url} HTTP/${incoming.httpVersion}`, 'latin1');
  const headerValues = incoming.rawHeaders.filter((_, index) => index % 2 === 1).reduce((sum, value) => sum + Buffer.byteLength(value, 'latin1'), 0);
  return requestLine + headerValues > MAX_REQUEST_LINE_AND_HEADER_BYTES ? HEADERS_TOO_LARGE : undefined;
}

function envelope(refusal: Refusal, requestId: string): string {
  return JSON.stringify({ error: { code: refusal.code, message: refusal.message, request_id: requestId } });
}

/** Closes the connection after the answer: the rest of the request is not read. */
function refuse(response: ServerResponse, refusal: Refusal): void {
  const requestId = randomUUID();
  response.writeHead(refusal.status, { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': requestId, Connection: 'close' });
  response.end(envelope(refusal, requestId));
}

/**
 * Headers past even Node's raised limit never reach the handler: Node's default answer is a bare 431
 * with no body. The same envelope is written on the socket instead; any other malformed request gets
 * a 400 in it. The socket is read to its end, not reset, so the client receives the answer.
 */
function refuseUnparsable(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const refusal: Refusal =
    error.code === 'HPE_HEADER_OVERFLOW' ? HEADERS_TOO_LARGE : { status: 400, code: 'invalid_request', message: 'The request is not valid HTTP/1.1' };
  const requestId = randomUUID();
  const body = envelope(refusal, requestId);
  socket.end(
    `HTTP/1.1 ${refusal.status} ${refusal.status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
  socket.resume();
  setTimeout(() => socket.destroy(), 5_000).unref();
}

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

/**
 * Whether the server listens on a loopback address only. Bound to anything else (0.0.0.0, a LAN
 * address), other machines reach it, and the dev routes (move the clock, read every email sent) are
 * not theirs to call.
 */
export function boundToLoopback(server: Server): boolean {
  const address = server.address();
  return typeof address === 'object' && address !== null && classifyAddress(address.address) === 'loopback';
}

function faultSetting(body: Buffer): FaultSetting | undefined {
  try {
    const { seed, rate } = JSON.parse(body.toString('utf8') || '{}');
    return Number.isInteger(seed) && typeof rate === 'number' && rate >= 0 && rate <= 1 ? { seed, rate } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Routes that exist only on the local server: they move the shared clock and show what local
 * adapters did. Off the loopback interface they do not exist: the request goes on to the API's 404.
 */
async function devRoute(request: HttpRequest, response: ServerResponse, server: Server): Promise<boolean> {
  if (!request.path.startsWith('/__dev/') || !boundToLoopback(server)) return false;
  const local = localRuntime();
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
    const { ran, completions, events } = await backgroundRound();
    sendJson(response, 200, { now: clock.now().toISOString(), ran, completions, events_delivered: events });
  } else if (route === 'GET /__dev/outbox') {
    sendJson(response, 200, { data: local.outbox.entries() });
  } else if (route === 'GET /__dev/faults') {
    sendJson(response, 200, { injected: local.faults.counts() });
  } else if (route === 'POST /__dev/faults') {
    const setting = faultSetting(request.body);
    if (!setting) sendJson(response, 400, { error: { code: 'invalid_request', message: 'seed must be an integer and rate a number from 0 to 1' } });
    else {
      local.faults.set(setting);
      sendJson(response, 200, setting);
    }
  } else if (route === 'POST /__dev/redrive') {
    // What an operator does after a dead-letter alarm, once the cause is fixed: the failed work goes round again.
    const jobs = await local.scheduler.redrive(clock.now());
    sendJson(response, 200, { jobs, events: local.events.redrive(), completions: local.completions.redrive() });
  } else if (route === 'POST /__dev/forget-caches') {
    // The ops CLI changed the table from another process: read it again, as a cold instance would.
    clearInstanceCaches();
    sendJson(response, 200, { forgotten: true });
  } else {
    sendJson(response, 404, { error: { code: 'resource_not_found', message: `No dev route ${route}` } });
  }
  return true;
}

let lastRound: Promise<unknown> = Promise.resolve();

/**
 * Events first (they may schedule work), then due jobs and queued cancel completions, then the events
 * those wrote. One round at a time, the timer's and /__dev/run-due's alike: the stream delivers a
 * shard's records one batch after another, and run-due answers only once all committed before it has
 * been delivered, even while the timer's round holds some of it.
 */
function backgroundRound() {
  const round = lastRound.then(async () => {
    const before = await drainEvents();
    const ran = await runDueJobs();
    const completions = await drainCompletions();
    const after = await drainEvents();
    return { ran, completions, events: before.events + after.events };
  });
  lastRound = round.catch(() => undefined);
  return round;
}

/**
 * Delivers events, fires due jobs and replays queued cancel completions every second, as the table
 * stream, EventBridge Scheduler and the SQS event source would; `--no-timer` leaves all to /__dev/run-due.
 */
export function startJobTimer(intervalMs = 1_000): () => Promise<void> {
  let running: Promise<void> | undefined;
  const tick = async () => {
    try {
      await backgroundRound();
    } catch (error) {
      console.error(error);
    }
  };
  const timer = setInterval(() => {
    running ??= tick().finally(() => (running = undefined));
  }, intervalMs);
  timer.unref();
  // Stopping lets a round that has begun finish, so no job is cut off between its writes.
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/** The cancel widget and its demo page, served by the local server only (in AWS the merchant hosts the script). */
async function widgetRoute(request: HttpRequest, response: ServerResponse, options: LocalServerOptions): Promise<boolean> {
  if (request.method !== 'GET') return false;
  if (request.path === '/cancel-widget.js') {
    response.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache', 'Access-Control-Allow-Origin': '*' });
    response.end(widgetScript());
    return true;
  }
  if (request.path === '/demo/cancel') {
    const page = await demoPage(request.query, options.demoMerchantId);
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    response.end(page);
    return true;
  }
  return false;
}

export interface LocalServerOptions {
  /** The seeded demo merchant the demo page's widget runs for, unless the page's query names another. */
  demoMerchantId?: string;
}

export interface LocalServer extends Server {
  /**
   * Stops taking connections, lets the requests already received finish (each answered with
   * `Connection: close`), closes idle keep-alive connections at once and any still open after
   * `graceMs`.
   */
  drain(graceMs: number): Promise<void>;
}

export function createLocalServer(options: LocalServerOptions = {}): LocalServer {
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  const server = createServer({ maxHeaderSize: MAX_PARSED_HEADER_BYTES }, async (incoming, response) => {
    inFlight.add(response);
    response.once('close', () => inFlight.delete(response));
    if (draining) response.shouldKeepAlive = false;
    const refusal = oversizedRequest(incoming);
    if (refusal) {
      refuse(response, refusal);
      return;
    }
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
      if (await devRoute(request, response, server)) return;
      if (await widgetRoute(request, response, options)) return;
      if (dashboardRoute(request, response)) return;
      if (await apiDescriptionRoute(request, response)) return;
      const result = await dispatch(request);
      response.writeHead(result.status, result.headers);
      response.end(result.body);
    } catch (error) {
      // Only the server's own plumbing fails here; handler faults already came back as 500 envelopes.
      if (response.headersSent) response.destroy();
      else if (error instanceof PayloadTooLarge) refuse(response, { status: 413, code: 'payload_too_large', message: error.message });
      else {
        console.error(error);
        sendJson(response, 500, { error: { code: 'internal_error', message: 'The local server failed to handle the request' } });
      }
    }
  });
  server.on('clientError', refuseUnparsable);
  return Object.assign(server, {
    async drain(graceMs: number): Promise<void> {
      draining = true;
      for (const response of inFlight) if (!response.headersSent) response.shouldKeepAlive = false;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
      await closed;
      clearTimeout(deadline);
    },
  });
}
