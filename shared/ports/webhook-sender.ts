/** One HTTP POST of a signed event to a merchant's endpoint. */
export interface WebhookRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  /**
   * Whether the URL may resolve to a non-public address (loopback, private, …). Only test-mode
   * endpoints on the local runtime; everything else is checked after DNS resolution, at connect time.
   */
  allowPrivateAddresses: boolean;
}

export type WebhookResponse = { ok: boolean; statusCode: number | null; error: string | null };

export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResponse>;
}
