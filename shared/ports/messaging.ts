import type { CampaignChannel } from '../model/campaign.ts';
import type { Tenant } from '../model/tenant.ts';

/** Outreach to a customer. Amazon SES (v2) and AWS End User Messaging SMS in AWS; the local outbox locally. */
export interface EmailMessage {
  tenant: Tenant;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Correlates bounces and complaints with the campaign step that sent it. */
  reference: string;
  /** Names this message for good: a send repeated with the same key is the same message, which a channel that deduplicates drops. */
  idempotencyKey: string;
}

export interface SmsMessage {
  tenant: Tenant;
  /** E.164 phone number. */
  to: string;
  body: string;
  reference: string;
  /** As EmailMessage's. */
  idempotencyKey: string;
}

export interface SentMessage {
  messageId: string;
}

export interface Mailer {
  send(message: EmailMessage): Promise<SentMessage>;
}

export interface SmsSender {
  send(message: SmsMessage): Promise<SentMessage>;
}

/**
 * A send on a channel the deployment was given no identity for (deployed without `mailFrom` or
 * `smsOriginationIdentity`). No retry can help, so it is not a job failure: the campaign step records
 * it on the enrollment and the sequence goes on.
 */
export class ChannelUnavailable extends Error {
  constructor(
    readonly channel: CampaignChannel,
    missing: string,
  ) {
    super(`The ${channel} channel is not configured for this deployment: ${missing} is not set`);
    this.name = 'ChannelUnavailable';
  }
}

/**
 * Why a provider refused a send for good: the customer's address cannot take it (invalid, opted out,
 * a destination the account may not reach), or the deployment's sender is refused (an unverified
 * domain, a missing identity or configuration set, a grant that does not cover it).
 */
export type SendRefusal = 'recipient_rejected' | 'sender_rejected';

/**
 * A send the provider refused in a way no retry can change (docs/decisions.md, "Refused sends").
 * Like ChannelUnavailable it is not a job failure: the campaign step records it on the enrollment and
 * the sequence goes on. Its message names the provider's error code only, never the recipient: the
 * provider's own message often quotes the address, so it stays on `cause`, which is never logged.
 */
export class PermanentSendFailure extends Error {
  constructor(
    readonly channel: CampaignChannel,
    readonly refusal: SendRefusal,
    /** The provider's error name, with its reason when it gives one (`ConflictException/DESTINATION_PHONE_NUMBER_OPTED_OUT`). */
    readonly code: string,
    options?: ErrorOptions,
  ) {
    super(`The ${channel} provider refused the message for good (${refusal}): ${code}`, options);
    this.name = 'PermanentSendFailure';
  }
}
