import type { APIGatewayProxyEvent } from 'aws-lambda';
import { isDeepStrictEqual } from 'node:util';
import * as z from '../zod.ts';
import { cardSetup } from '../composition/card-setup.ts';
import { keyVault } from '../composition/key-vault.ts';
import { scheduler } from '../composition/scheduler.ts';
import { runtime } from '../runtime.ts';
import { notFound } from '../model/errors.ts';
import { ingestProcessorEvent } from '../domain/ingestion/ingestion.ts';
import { openConnection } from '../domain/ingestion/processor-credentials.ts';
import { WebhookRejected, type ProcessorEvent } from '../model/processor-event.ts';
import { addLogContext } from '../log.ts';
import { cachedConnection, findConnection } from '../store/processor-connections.ts';
import type { WebhookReceipt } from '../representations/schemas/webhook-receipt.ts';
import { withContract, type RequestContract } from './contract.ts';
import { parseInput } from './parse.ts';
import { publicHandler } from './public-handler.ts';
import { jsonResult } from './responses.ts';
import { pathId } from './schemas.ts';
import type { OpenedConnection, ProcessorConnection } from '../model/processor-connection.ts';

const params = z.looseObject({ connection_id: pathId('con'), psp: z.string().optional() });

/** The raw body exactly as sent: signatures are computed over these bytes. */
export function rawBody(event: APIGatewayProxyEvent): string {
  if (event.body === null) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

export type Verifier = (event: APIGatewayProxyEvent, connection: OpenedConnection, now: Date) => Promise<ProcessorEvent> | ProcessorEvent;

/** How the processor sends its events, for the API description: the verifier reads the same. */
export type WebhookRequest = Required<Pick<RequestContract, 'contentType'>> & Pick<RequestContract, 'signatureHeader' | 'body'>;

/**
 * The connection a webhook URL names and the event verified with its secrets, opened for it. A warm
 * instance uses the connection it read recently; if that copy's secrets refuse the event, the merchant
 * may just have replaced them (on another instance), so the connection is read once more and, if its
 * sealed secrets changed, opened and the event verified again before it is refused.
 */
async function verifiedEvent(connectionId: string, psp: string | undefined, event: APIGatewayProxyEvent, verify: Verifier, now: Date) {
  const usable = (connection: ProcessorConnection | undefined): ProcessorConnection => {
    if (!connection || connection.psp !== psp) throw notFound('webhook endpoint', connectionId);
    // No API key here, but the connection says whose webhook it is: the request's lines carry the merchant like any other.
    addLogContext({ merchant_id: connection.tenant.merchantId, environment: connection.tenant.environment });
    return connection;
  };
  const cached = cachedConnection(connectionId);
  const connection = usable(cached ?? (await findConnection(connectionId)));
  try {
    return { connection, parsed: await verify(event, await openConnection(keyVault, connection), now) };
  } catch (error) {
    if (cached === undefined || !(error instanceof WebhookRejected)) throw error;
    const fresh = usable(await findConnection(connectionId));
    if (isDeepStrictEqual(fresh.credentials, cached.credentials)) throw error;
    return { connection: fresh, parsed: await verify(event, await openConnection(keyVault, fresh), now) };
  }
}

/**
 * A processor's webhook endpoint: no API key, the processor's signature is the credential. Unknown
 * connection → 404; bad signature or payload → 400 with nothing stored; otherwise the verified event
 * is ingested and acknowledged with 200 (event types we do not use included, so the processor stops
 * resending them).
 */
export function webhookReceiver(psp: string | 'from-path', verify: Verifier, request: WebhookRequest) {
  const handler = publicHandler(async (event) => {
    const { connection_id: connectionId, psp: pathPsp } = parseInput(params, event.pathParameters ?? {}, 'path');
    const now = runtime.clock.now();
    const { connection, parsed } = await verifiedEvent(connectionId, psp === 'from-path' ? pathPsp : psp, event, verify, now);
    const result = await ingestProcessorEvent({ scheduler, cardSetup, keyVault }, connection, parsed, now);
    return jsonResult(200, { received: true, event_id: parsed.eventId, ...result } satisfies WebhookReceipt);
  });
  return withContract(handler, { surface: 'webhook', params, ...request });
}
