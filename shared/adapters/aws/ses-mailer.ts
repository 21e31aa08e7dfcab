import { SendEmailCommand, type SESv2Client } from '@aws-sdk/client-sesv2';
import type { EmailMessage, Mailer, SentMessage } from '../../ports/messaging.ts';

export interface SesMailerConfig {
  /** A verified SES identity, e.g. "Billing <billing@example.com>". */
  fromAddress: string;
  /** Event destination for bounces and complaints, when configured. */
  configurationSet?: string;
}

/** Email through Amazon SES v2. The reference rides along as a message tag for bounce handling. */
export class SesMailer implements Mailer {
  constructor(
    private readonly client: SESv2Client,
    private readonly config: SesMailerConfig,
  ) {}

  async send(message: EmailMessage): Promise<SentMessage> {
    const { MessageId } = await this.client.send(
      new SendEmailCommand({
        FromEmailAddress: this.config.fromAddress,
        Destination: { ToAddresses: [message.to] },
        Content: {
          Simple: {
            Subject: { Data: message.subject, Charset: 'UTF-8' },
            Body: { Text: { Data: message.text, Charset: 'UTF-8' }, Html: { Data: message.html, Charset: 'UTF-8' } },
          },
        },
        ConfigurationSetName: this.config.configurationSet,
        EmailTags: [
          { Name: 'merchant', Value: message.tenant.merchantId },
          { Name: 'reference', Value: message.reference.replace(/[^A-Za-z0-9_-]/g, '_') },
        ],
      }),
    );
    if (!MessageId) throw new Error('SES accepted the email without a message id');
    return { messageId: MessageId };
  }
}
