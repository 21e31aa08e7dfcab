/** One HTTP POST of a signed event to a merchant's endpoint. */
export interface WebhookRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  /**
   * Whether the URL may resolve to a non-public address (loopback, private, …). Only test-mode
   * endpoints where the sender allows them (privateTestEndpoints); everything else is checked after
   * DNS resolution, at connect time.
   */
  allowPrivateAddresses: boolean;
}

export type WebhookResponse = { ok: boolean; statusCode: number | null; error: string | null };

export interface WebhookSender {
  /** Whether test-mode endpoints may be on this machine or a private network: only the local server's sender. */
  readonly privateTestEndpoints: boolean;
  send(request: WebhookRequest): Promise<WebhookResponse>;
}
