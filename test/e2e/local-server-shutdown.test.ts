/**
 * `npm start` stopped while requests are in flight, by SIGTERM (a process manager, `kill`) or by
 * Ctrl-C in its terminal: each request is answered in full, then the server stops its DynamoDB Local
 * and exits, leaving no process.
 */
import { Agent, request, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { expect, it } from 'vitest';
import { startLocalServer } from '../support/local-server.ts';

interface Answer {
  status: number;
  connection: string | undefined;
  body: any;
}

function answerOf(response: IncomingMessage): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let text = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => (text += chunk));
    response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, body: JSON.parse(text) }));
    response.on('error', reject);
  });
}

const STOPS = [
  { how: 'SIGTERM to the server', viaNpm: false, interrupt: false },
  // The terminal signals every process of the group, and npm passes the signal on once more.
  { how: 'Ctrl-C on npm start', viaNpm: true, interrupt: true },
];

it.each(STOPS)('answers every request already received, then stops its engine: $how', async ({ viaNpm, interrupt }) => {
  // Prepare: five key creations whose bodies are still arriving, and one idle keep-alive connection
  const server = await startLocalServer({}, [], { viaNpm });
  const url = new URL('/v1/api-keys', server.baseUrl);
  const headers = { Authorization: `Bearer ${server.credentials.keys.test_admin}`, 'Content-Type': 'application/json' };
  // The route's first call loads its handler, as a cold start would: done before, so the drain times requests only.
  const warm = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ name: 'warm', scopes: ['read'] }) });
  expect(warm.status).toBe(201);
  const uploads = Array.from({ length: 5 }, (_, index) => {
    const body = JSON.stringify({ name: `drain-${index}`, scopes: ['read'] });
    const req = request(url, {
      method: 'POST',
      headers: {
        ...headers,
        'Content-Length': Buffer.byteLength(body),
        'Idempotency-Key': `drain-${index}`,
      },
    });
    const answered = new Promise<Answer>((resolve, reject) => {
      req.on('response', (response) => answerOf(response).then(resolve, reject));
      req.on('error', reject);
    });
    const connected = new Promise((resolve) => req.on('socket', (socket) => socket.once('connect', resolve)));
    const half = Math.floor(body.length / 2);
    req.write(body.slice(0, half));
    return { answered, connected, finish: () => req.end(body.slice(half)) };
  });
  await Promise.all(uploads.map((upload) => upload.connected));
  // Answered after the server has read what the uploads sent before it (one loopback, one event loop).
  const idle = await new Promise<Answer>((resolve, reject) => {
    const req = request(new URL('/__dev/clock', server.baseUrl), { agent: new Agent({ keepAlive: true }) });
    req.on('response', (response) => answerOf(response).then(resolve, reject));
    req.on('error', reject);
    req.end();
  });
  expect(idle.status).toBe(200);
  expect(server.processes().some((process) => process.command.includes('DynamoDBLocal.jar'))).toBe(true);

  // Act: the stop while the bodies are half sent, then the rest of each body
  const stopped = server.stop({ interrupt });
  for (let waited = 0; !server.output().includes('Stopping:'); waited += 50) {
    if (waited > 10_000) throw new Error(`the server did not start stopping: ${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // New connections (not fetch's pooled keep-alive one, which the drain closes as idle) are refused
  // once the listening socket is closed, a moment after the log line on a loaded machine.
  let refused: string | undefined;
  for (let tries = 0; refused !== 'ECONNREFUSED' && tries < 40; tries++) {
    refused = await new Promise<string | undefined>((resolve) => {
      const socket = connect(Number(new URL(server.baseUrl).port), '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve('accepted');
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code));
    });
    if (refused !== 'ECONNREFUSED') await new Promise((resolve) => setTimeout(resolve, 50));
  }
  for (const upload of uploads) upload.finish();
  const answers = await Promise.all(uploads.map((upload) => upload.answered));
  const ended = await stopped;

  // Assess
  expect(refused).toBe('ECONNREFUSED');
  for (const [index, answer] of answers.entries()) {
    expect(answer.status).toBe(201);
    expect(answer.connection).toBe('close');
    expect(answer.body.data).toMatchObject({ name: `drain-${index}`, scopes: ['read'] });
  }
  expect(server.output()).toContain('"message":"Stopped"');
  // After a Ctrl-C npm ends itself by SIGINT whatever the server did; tsx passes on the server's own code.
  expect(ended).toEqual(viaNpm ? { code: null, signal: 'SIGINT' } : { code: 0, signal: null });
  expect(server.processes()).toEqual([]);
});

it("leaves no DynamoDB Local behind when the server is killed outright (its starter ends the server's groups)", async () => {
  // Prepare
  const server = await startLocalServer();
  const engine = server.processes().find((process) => process.command.includes('DynamoDBLocal.jar'));
  expect(engine).toBeDefined();
  // Act: SIGKILL the server's node process, which gives it no chance to stop its engine
  process.kill(engine!.parent, 'SIGKILL');
  await server.stop();
  // Assess
  for (let waited = 0; server.processes().length > 0 && waited < 5_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(server.processes()).toEqual([]);
});
