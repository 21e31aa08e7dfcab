/**
 * The ingestion floors (issue #26): the least an ingestion endpoint does, as an HTTP server of its own.
 * It reads the body, checks the generic format's HMAC signature (`t=<unix>,v1=<hex>`), parses the JSON,
 * then writes through the same document client the service uses, on the same DynamoDB Local:
 * - by default (the first floor), one three-item TransactWriteItems: the payment, its processor
 *   reference only where none is, the payment.failed event;
 * - with RECORDED_CALLS (a JSON file: event id → rounds of { operation, input }, the requests the local
 *   server made for that event, bench/ingestion-recording.ts), exactly those requests, each round's
 *   together, the rounds in order: what is left of the service's time is then ours, not the engine's.
 * GET /tally answers what it sent since the last GET (events, requests, items, tries, refused calls).
 * Plain JavaScript run by `node`: no loader between it and its figure.
 * Environment: PORT, TABLE_NAME, WEBHOOK_SECRET, RECORDED_CALLS, and the AWS SDK's own (AWS_ENDPOINT_URL_DYNAMODB…).
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { COMMANDS, itemsOf } from './calls.mjs';

const tableName = process.env.TABLE_NAME;
const secret = process.env.WEBHOOK_SECRET;
if (!tableName || !secret) throw new Error('TABLE_NAME and WEBHOOK_SECRET must be set');
const db = DynamoDBDocumentClient.from(new DynamoDBClient({ maxAttempts: 4 }), { marshallOptions: { removeUndefinedValues: true } });
const PK = 'FLOOR#ingestion';
/** Event id → the service's requests for it, as recorded (already aimed at this floor's table). */
const recorded = process.env.RECORDED_CALLS ? new Map(Object.entries(JSON.parse(readFileSync(process.env.RECORDED_CALLS, 'utf8')))) : undefined;
const freshTally = () => ({ events: 0, requests: 0, items: 0, tries: 0, refused: {} });
let tally = freshTally();

/** One request as the service sent it; a refusal (a condition the replay finds otherwise) is counted, not fatal. */
async function send({ operation, input }) {
  const Command = COMMANDS[operation];
  if (!Command) throw new Error(`The floor makes no ${operation} requests`);
  tally.requests += 1;
  tally.items += itemsOf(operation, input);
  try {
    const { $metadata } = await db.send(new Command(input));
    tally.tries += $metadata.attempts ?? 1;
  } catch (error) {
    tally.tries += error.$metadata?.attempts ?? 1;
    tally.refused[error.name] = (tally.refused[error.name] ?? 0) + 1;
  }
}

async function replay(event) {
  const rounds = recorded.get(event.id);
  if (!rounds) throw new Error(`No recorded requests for event ${event.id}`);
  for (const round of rounds) await Promise.all(round.map(send));
  return event.id;
}

function signedBody(body, header) {
  const parts = Object.fromEntries(String(header ?? '').split(',').map((part) => part.split('=')));
  const expected = createHmac('sha256', secret).update(`${parts.t}.${body}`).digest();
  const given = Buffer.from(String(parts.v1 ?? ''), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function answer(response, status, body) {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

async function ingest(body) {
  const event = JSON.parse(body);
  tally.events += 1;
  if (recorded) return replay(event);
  const now = new Date().toISOString();
  const paymentId = `pay_${randomUUID().replaceAll('-', '')}`;
  const payment = {
    pk: PK,
    sk: `PAYMENT#${paymentId}`,
    id: paymentId,
    psp_payment_id: event.payment.id,
    customer: event.customer.id,
    amount: event.payment.amount,
    currency: event.payment.currency,
    decline_code: event.payment.decline_code,
    status: 'pending',
    created_at: now,
  };
  const TransactItems = [
    { Put: { TableName: tableName, Item: payment } },
    { Put: { TableName: tableName, Item: { pk: PK, sk: `REF#${event.payment.id}`, payment_id: paymentId }, ConditionExpression: 'attribute_not_exists(pk)' } },
    { Put: { TableName: tableName, Item: { pk: PK, sk: `EVENT#${now}#${event.id}`, type: 'payment.failed', data: payment } } },
  ];
  tally.requests += 1;
  tally.items += itemsOf('TransactWriteItems', { TransactItems });
  const { $metadata } = await db.send(new TransactWriteCommand({ TransactItems }));
  tally.tries += $metadata.attempts ?? 1;
  return paymentId;
}

const server = createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/tally') {
    answer(response, 200, tally);
    tally = freshTally();
    return;
  }
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    if (!signedBody(body, request.headers['x-recovery-signature'])) return answer(response, 400, { error: { code: 'invalid_signature' } });
    ingest(body).then(
      (paymentId) => answer(response, 200, { received: true, payment_id: paymentId }),
      (error) => answer(response, error.name === 'TransactionCanceledException' ? 409 : 500, { error: { code: error.name } }),
    );
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log(JSON.stringify({ listening: server.address().port })));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
