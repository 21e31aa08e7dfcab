import type { CampaignChannel } from '../domain/campaigns.ts';
import type { Tenant } from '../domain/tenant.ts';

/** Outreach to a customer. Amazon SES (v2) and AWS End User Messaging SMS in AWS; the local outbox locally. */
export interface EmailMessage {
  tenant: Tenant;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Correlates bounces and complaints with the campaign step that sent it. */
  reference: string;
}

export interface SmsMessage {
  tenant: Tenant;
  /** E.164 phone number. */
  to: string;
  body: string;
  reference: string;
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
