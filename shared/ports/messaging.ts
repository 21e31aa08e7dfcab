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
