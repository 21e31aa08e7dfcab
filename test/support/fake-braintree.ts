/**
 * A local stand-in for the Braintree gateway API that the live adapter is pointed at through a
 * gateway address naming 127.0.0.1 and this server's port, without TLS. It records every request as
 * it was sent and answers with scripted Braintree XML, an HTTP error status, or no answer at all.
 *
 * Braintree's API (as the `braintree` package 3.40 calls it) takes request bodies as JSON with
 * underscored keys, e.g.
 * {"transaction":{"amount":"19.99","subscription_id":"sub_1","options":{"submit_for_settlement":true},"type":"sale"}},
 * and answers in XML.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BraintreeGatewayAddress } from '../../shared/adapters/aws/braintree-gateway.ts';

export interface RecordedBraintreeRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** The body parsed as JSON, when there is one. */
  json: unknown;
}

export type BraintreeReply = { status: number; xml?: string } | { hang: true };

export interface FakeBraintree {
  readonly port: number;
  /** Points the adapter at this server. */
  readonly environment: BraintreeGatewayAddress;
  readonly requests: RecordedBraintreeRequest[];
  /** Scripts the answers to `method path`, in order; the last one keeps being given. */
  on(method: string, path: string, ...replies: BraintreeReply[]): void;
  reset(): void;
  close(): Promise<void>;
}

export async function startFakeBraintree(): Promise<FakeBraintree> {
  const requests: RecordedBraintreeRequest[] = [];
  const scripts = new Map<string, BraintreeReply[]>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const method = req.method ?? 'GET';
      const path = new URL(req.url ?? '/', 'http://fake-braintree').pathname;
      const rawBody = Buffer.concat(chunks).toString('utf8');
      requests.push({ method, path, headers: req.headers, rawBody, json: rawBody ? JSON.parse(rawBody) : undefined });
      const queue = scripts.get(`${method} ${path}`);
      const reply: BraintreeReply = (queue && queue.length > 1 ? queue.shift() : queue?.[0]) ?? { status: 404 };
      if ('hang' in reply) return; // the socket stays open until close()
      const body = reply.xml === undefined ? '' : `<?xml version="1.0" encoding="UTF-8"?>\n${reply.xml}`;
      res.writeHead(reply.status, { 'content-type': 'application/xml; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    port,
    environment: { server: '127.0.0.1', port, ssl: false },
    requests,
    on(method, path, ...replies) {
      scripts.set(`${method} ${path}`, [...replies]);
    },
    reset() {
      scripts.clear();
      requests.length = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Answers in Braintree's XML (the elements the adapter reads, plus identity)

export interface TransactionFields {
  id: string;
  status: string;
  amount?: string;
  subscriptionId?: string;
  billingPeriodStartDate?: string;
  processorResponseCode?: string;
  processorResponseText?: string;
  gatewayRejectionReason?: string;
  createdAt?: string;
}

export function transactionXml(fields: TransactionFields): string {
  return `<transaction>
  <id>${escape(fields.id)}</id>
  <status>${escape(fields.status)}</status>
  <type>sale</type>
  <currency-iso-code>USD</currency-iso-code>
  <amount type="decimal">${escape(fields.amount ?? '19.99')}</amount>
  ${element('subscription-id', fields.subscriptionId)}
  ${
    fields.billingPeriodStartDate
      ? `<subscription><billing-period-start-date type="date">${escape(fields.billingPeriodStartDate)}</billing-period-start-date></subscription>`
      : ''
  }
  <processor-response-code>${escape(fields.processorResponseCode ?? '')}</processor-response-code>
  <processor-response-text>${escape(fields.processorResponseText ?? '')}</processor-response-text>
  ${fields.gatewayRejectionReason ? element('gateway-rejection-reason', fields.gatewayRejectionReason) : '<gateway-rejection-reason nil="true"/>'}
  <created-at type="datetime">${escape(fields.createdAt ?? new Date().toISOString())}</created-at>
</transaction>`;
}

export function subscriptionXml(fields: { id: string; status: string; balance?: string; billingPeriodStartDate?: string; transactions?: TransactionFields[] }): string {
  return `<subscription>
  <id>${escape(fields.id)}</id>
  <status>${escape(fields.status)}</status>
  <balance type="decimal">${escape(fields.balance ?? '19.99')}</balance>
  ${element('billing-period-start-date', fields.billingPeriodStartDate, 'date')}
  <transactions type="array">${(fields.transactions ?? []).map(transactionXml).join('')}</transactions>
  <add-ons type="array"/>
  <discounts type="array"/>
</subscription>`;
}

/** A 422 answer: validation errors on the transaction, and the transaction itself when one was created (declines). */
export function apiErrorXml(message: string, options: { errors?: { code: string; attribute: string; message: string }[]; transaction?: TransactionFields } = {}): string {
  const errors = (options.errors ?? [])
    .map((error) => `<error><code>${escape(error.code)}</code><attribute type="symbol">${escape(error.attribute)}</attribute><message>${escape(error.message)}</message></error>`)
    .join('');
  return `<api-error-response>
  <errors>
    <errors type="array"/>
    <transaction><errors type="array">${errors}</errors></transaction>
  </errors>
  <message>${escape(message)}</message>
  ${options.transaction ? transactionXml(options.transaction) : ''}
</api-error-response>`;
}

function element(name: string, value: string | undefined, type?: string): string {
  if (value === undefined) return '';
  return `<${name}${type ? ` type="${type}"` : ''}>${escape(value)}</${name}>`;
}

const escape = (value: string): string =>
  value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
