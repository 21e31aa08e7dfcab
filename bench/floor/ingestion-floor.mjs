/**
 * The ingestion floor (issue #26): the least an ingestion endpoint does, as an HTTP server of its own.
 * It reads the body, checks the generic format's HMAC signature (`t=<unix>,v1=<hex>`), parses the JSON
 * and writes one three-item TransactWriteItems (the payment, its processor reference only where none
 * is, the payment.failed event) through the same document client the service uses, on the same table
 * of the same DynamoDB Local. Plain JavaScript run by `node`: no loader between it and its figure.
 * Environment: PORT, TABLE_NAME, WEBHOOK_SECRET, and the AWS SDK's own (AWS_ENDPOINT_URL_DYNAMODB…).
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';

const tableName = process.env.TABLE_NAME;
const secret = process.env.WEBHOOK_SECRET;
if (!tableName || !secret) throw new Error('TABLE_NAME and WEBHOOK_SECRET must be set');
const db = DynamoDBDocumentClient.from(new DynamoDBClient({ maxAttempts: 4 }), { marshallOptions: { removeUndefinedValues: true } });
const PK = 'FLOOR#ingestion';

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
  await db.send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: tableName, Item: payment } },
        { Put: { TableName: tableName, Item: { pk: PK, sk: `REF#${event.payment.id}`, payment_id: paymentId }, ConditionExpression: 'attribute_not_exists(pk)' } },
        { Put: { TableName: tableName, Item: { pk: PK, sk: `EVENT#${now}#${event.id}`, type: 'payment.failed', data: payment } } },
      ],
    }),
  );
  return paymentId;
}

const server = createServer((request, response) => {
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
