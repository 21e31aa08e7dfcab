import { SendTextMessageCommand, type PinpointSMSVoiceV2Client } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import type { SentMessage, SmsMessage, SmsSender } from '../../ports/messaging.ts';

export interface EndUserSmsConfig {
  /** Phone number, pool or sender ID to send from; CDK passes its ARN, the resource the function is granted. */
  originationIdentity: string;
  configurationSet?: string;
}

/** SMS through AWS End User Messaging (the pinpoint-sms-voice-v2 API), transactional. */
export class EndUserSmsSender implements SmsSender {
  constructor(
    private readonly client: PinpointSMSVoiceV2Client,
    private readonly config: EndUserSmsConfig,
  ) {}

  async send(message: SmsMessage): Promise<SentMessage> {
    const { MessageId } = await this.client.send(
      new SendTextMessageCommand({
        DestinationPhoneNumber: message.to,
        OriginationIdentity: this.config.originationIdentity,
        MessageBody: message.body,
        MessageType: 'TRANSACTIONAL',
        ConfigurationSetName: this.config.configurationSet,
        Context: { merchant: message.tenant.merchantId, reference: message.reference },
      }),
    );
    if (!MessageId) throw new Error('End User Messaging accepted the SMS without a message id');
    return { messageId: MessageId };
  }
}
