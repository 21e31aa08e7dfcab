import { HttpWebhookSender } from '../adapters/http-webhook-sender.ts';
import type { WebhookSender } from '../ports/webhook-sender.ts';
import { adapterFor } from './adapters.ts';

/** Outbound webhook deliveries for this runtime: real HTTP(S) everywhere; the local server also records each attempt. */
export const webhookSender: WebhookSender = adapterFor('webhookSender', () => new HttpWebhookSender());
