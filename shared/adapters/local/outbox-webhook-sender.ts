import type { Clock } from '../../ports/clock.ts';
import type { WebhookRequest, WebhookResponse, WebhookSender } from '../../ports/webhook-sender.ts';
import type { LocalOutbox } from './outbox.ts';

/**
 * The local server delivers for real (to a merchant's test server on this machine, say) and records
 * each attempt in the outbox (`GET /__dev/outbox`, channel `webhook`). Test-mode endpoints may be
 * local or private here, as a developer's are.
 */
export class OutboxWebhookSender implements WebhookSender {
  readonly privateTestEndpoints = true;

  constructor(
    private readonly sender: WebhookSender,
    private readonly outbox: LocalOutbox,
    private readonly clock: Clock,
  ) {}

  async send(request: WebhookRequest): Promise<WebhookResponse> {
    const result = await this.sender.send(request);
    this.outbox.record({
      channel: 'webhook',
      to: request.url,
      at: this.clock.now().toISOString(),
      content: { event_id: request.headers['Recovery-Event-Id'], status_code: result.statusCode, error: result.error, body: request.body },
    });
    return result;
  }
}
