import type { APIGatewayProxyEvent } from 'aws-lambda';
import * as z from 'zod';
import { runtime } from '../composition.ts';
import { notFound } from '../domain/errors.ts';
import { ingestProcessorEvent } from '../domain/ingestion.ts';
import type { ProcessorEvent } from '../domain/processor-events.ts';
import { findConnection, type ProcessorConnection } from '../store/processor-connections.ts';
import { parseInput } from './parse.ts';
import { publicHandler } from './public-handler.ts';
import { jsonResult } from './responses.ts';

const params = z.looseObject({ connection_id: z.string().regex(/^con_[0-9a-z]{26}$/), psp: z.string().optional() });

/** The raw body exactly as sent: signatures are computed over these bytes. */
export function rawBody(event: APIGatewayProxyEvent): string {
  if (event.body === null) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

export type Verifier = (event: APIGatewayProxyEvent, connection: ProcessorConnection, now: Date) => Promise<ProcessorEvent> | ProcessorEvent;

/**
 * A processor's webhook endpoint: no API key, the processor's signature is the credential. Unknown
 * connection → 404; bad signature or payload → 400 with nothing stored; otherwise the verified event
 * is ingested and acknowledged with 200 (event types we do not use included, so the processor stops
 * resending them).
 */
export function webhookReceiver(psp: string | 'from-path', verify: Verifier) {
  return publicHandler(async (event) => {
    const { connection_id: connectionId, psp: pathPsp } = parseInput(params, event.pathParameters ?? {}, 'path');
    const expectedPsp = psp === 'from-path' ? pathPsp : psp;
    const connection = await findConnection(connectionId);
    if (!connection || connection.psp !== expectedPsp) throw notFound('webhook endpoint', connectionId);
    const now = runtime.clock.now();
    const parsed = await verify(event, connection, now);
    const result = await ingestProcessorEvent(connection, parsed, now);
    return jsonResult(200, { received: true, event_id: parsed.eventId, ...result });
  });
}
