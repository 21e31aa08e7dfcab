import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { classifyAddress, isLocalHostName } from '../model/address-policy.ts';
import type { WebhookRequest, WebhookResponse, WebhookSender } from '../ports/webhook-sender.ts';

export const DELIVERY_TIMEOUT_MS = 10_000;
export const USER_AGENT = 'PaymentRecovery-Webhooks/1.0 (+https://docs.example.com/webhooks)';
/** Only the start of a response is read: its status decides, the body is never stored. */
const MAX_RESPONSE_BYTES = 64 * 1024;

class BlockedAddress extends Error {}

/**
 * Resolves like the default lookup, then refuses any answer that is not a public address, so the
 * socket connects only to an address that was checked (no DNS-rebinding window between the check
 * and the connect). TLS still verifies the certificate against the URL's host name (SNI).
 */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const blocked = addresses.find((entry) => classifyAddress(entry.address) !== 'public');
    if (blocked || addresses.length === 0) {
      const reason = blocked ? `${hostname} resolves to a ${classifyAddress(blocked.address)} address` : `${hostname} did not resolve`;
      return callback(new BlockedAddress(reason), '', 0);
    }
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

function refusal(url: URL, allowPrivate: boolean): string | null {
  if (allowPrivate) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isLocalHostName(host)) return `${host} is a local host name`;
  if (isIP(host) !== 0) {
    const kind = classifyAddress(host);
    if (kind !== 'public') return `${host} is a ${kind} address`;
  }
  return null;
}

/** Real HTTP(S) delivery, in AWS and locally (where the outbox sender also records each attempt). */
export class HttpWebhookSender implements WebhookSender {
  readonly privateTestEndpoints = false;

  constructor(private readonly timeoutMs = DELIVERY_TIMEOUT_MS) {}

  send(request: WebhookRequest): Promise<WebhookResponse> {
    const url = new URL(request.url);
    const refused = refusal(url, request.allowPrivateAddresses);
    if (refused) return Promise.resolve({ ok: false, statusCode: null, error: `Refused: ${refused}` });
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve) => {
      let settled = false;
      const finish = (response: WebhookResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve(response);
      };
      const outgoing = client.request(
        url,
        {
          method: 'POST',
          headers: { ...request.headers, 'Content-Length': Buffer.byteLength(request.body).toString(), 'User-Agent': USER_AGENT },
          lookup: request.allowPrivateAddresses ? undefined : publicOnlyLookup,
          agent: false,
        },
        (response) => {
          const statusCode = response.statusCode ?? 0;
          let received = 0;
          response.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (received > MAX_RESPONSE_BYTES) response.destroy();
          });
          const done = () => {
            const ok = statusCode >= 200 && statusCode < 300;
            finish({ ok, statusCode, error: ok ? null : `HTTP ${statusCode}` });
          };
          response.on('end', done);
          response.on('close', done);
          response.on('error', done);
        },
      );
      // One deadline for the whole exchange (connect, TLS, request, response), not a per-socket idle timer.
      const deadline = setTimeout(() => {
        finish({ ok: false, statusCode: null, error: `Timed out after ${this.timeoutMs / 1000} s` });
        outgoing.destroy();
      }, this.timeoutMs);
      outgoing.on('error', (error) =>
        finish({ ok: false, statusCode: null, error: error instanceof BlockedAddress ? `Refused: ${error.message}` : `Connection failed: ${error.message}` }),
      );
      outgoing.end(request.body);
    });
  }
}
