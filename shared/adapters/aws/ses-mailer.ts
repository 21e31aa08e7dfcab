import { SendEmailCommand, type SESv2Client } from '@aws-sdk/client-sesv2';
import type { EmailMessage, Mailer, SendRefusal, SentMessage } from '../../ports/messaging.ts';
import { sendOrRefuse, type RefusalClassifier } from './send-refusals.ts';

export interface SesMailerConfig {
  /** A verified SES identity, e.g. "Billing <billing@example.com>". */
  fromAddress: string;
  /** Event destination for bounces and complaints, when configured. */
  configurationSet?: string;
}

/**
 * SendEmail errors no retry can change (docs/decisions.md, "Refused sends"). Everything else is
 * retried: TooManyRequestsException, LimitExceededException, 5xx, network errors, and the
 * account-wide AccountSuspendedException and SendingPausedException, which AWS lifts on review.
 */
const SES_REFUSALS = new Map<string, SendRefusal>([
  // This message to this recipient: content SES will not carry or, in the SES sandbox, an unverified recipient.
  ['MessageRejected', 'recipient_rejected'],
  // The request is ours and fixed but for the address the processor gave us and the rendered text.
  ['BadRequestException', 'recipient_rejected'],
  ['MailFromDomainNotVerifiedException', 'sender_rejected'],
  // The configuration set or the sending identity is gone.
  ['NotFoundException', 'sender_rejected'],
]);

const sesRefusal: RefusalClassifier = (error) => SES_REFUSALS.get(error.name);

/** Email through Amazon SES v2. The reference rides along as a message tag for bounce handling. */
export class SesMailer implements Mailer {
  constructor(
    private readonly client: SESv2Client,
    private readonly config: SesMailerConfig,
  ) {}

  async send(message: EmailMessage): Promise<SentMessage> {
    const { MessageId } = await sendOrRefuse('email', sesRefusal, () =>
      this.client.send(
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
            // SES takes no idempotency token (docs/decisions.md, "Dunning sends exactly once"): a repeat is sent, and its events name the key.
            { Name: 'idempotency_key', Value: message.idempotencyKey.replace(/[^A-Za-z0-9_-]/g, '_') },
          ],
        }),
      ),
    );
    if (!MessageId) throw new Error('SES accepted the email without a message id');
    return { messageId: MessageId };
  }
}
