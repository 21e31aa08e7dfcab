import {
  SendTextMessageCommand,
  type ConflictExceptionReason,
  type PinpointSMSVoiceV2Client,
  type ValidationExceptionReason,
} from '@aws-sdk/client-pinpoint-sms-voice-v2';
import type { SendRefusal, SentMessage, SmsMessage, SmsSender } from '../../ports/messaging.ts';
import { sendOrRefuse, type RefusalClassifier } from './send-refusals.ts';

export interface EndUserSmsConfig {
  /** Phone number, pool or sender ID to send from; CDK passes its ARN, the resource the function is granted. */
  originationIdentity: string;
  configurationSet?: string;
}

/** Conflicts about the destination number; the others are the state of our origination identity, pool or configuration set. */
const RECIPIENT_CONFLICTS = new Set<string>([
  'DESTINATION_PHONE_NUMBER_OPTED_OUT',
  'DESTINATION_PHONE_NUMBER_NOT_VERIFIED',
  'DESTINATION_COUNTRY_BLOCKED_BY_PROTECT_CONFIGURATION',
  'DESTINATION_PHONE_NUMBER_BLOCKED_BY_PROTECT_NUMBER_OVERRIDE',
] satisfies ConflictExceptionReason[]);

/** Validation failures about our origination identity; the others are about the destination or the text sent to it. */
const SENDER_VALIDATIONS = new Set<string>([
  'INVALID_ARN',
  'RESOURCE_NOT_ACCESSIBLE',
  'SENDER_ID_NOT_REGISTERED',
  'SENDER_ID_NOT_SUPPORTED',
  'SENDER_ID_REQUIRES_REGISTRATION',
  'CHANNEL_NOT_ENABLED',
] satisfies ValidationExceptionReason[]);

/**
 * SendTextMessage errors no retry can change (docs/decisions.md, "Refused sends"). Retried:
 * ThrottlingException, ServiceQuotaExceededException (the monthly spend limit too),
 * InternalServerException, network errors, and an AccessDeniedException that gives the account's
 * standing as its reason (ACCOUNT_DISABLED, INSUFFICIENT_ACCOUNT_REPUTATION), which AWS lifts on review.
 */
const smsRefusal: RefusalClassifier = ({ name, Reason: reason }): SendRefusal | undefined => {
  const known = typeof reason === 'string' ? reason : '';
  switch (name) {
    case 'ValidationException':
      return SENDER_VALIDATIONS.has(known) ? 'sender_rejected' : 'recipient_rejected';
    case 'ConflictException':
      return RECIPIENT_CONFLICTS.has(known) ? 'recipient_rejected' : 'sender_rejected';
    case 'ResourceNotFoundException':
      return 'sender_rejected';
    case 'AccessDeniedException':
      // Without a reason it is IAM: the grant does not cover the identity or configuration set.
      return known === '' ? 'sender_rejected' : undefined;
    default:
      return undefined;
  }
};

/** SMS through AWS End User Messaging (the pinpoint-sms-voice-v2 API), transactional. */
export class EndUserSmsSender implements SmsSender {
  constructor(
    private readonly client: PinpointSMSVoiceV2Client,
    private readonly config: EndUserSmsConfig,
  ) {}

  async send(message: SmsMessage): Promise<SentMessage> {
    const { MessageId } = await sendOrRefuse('sms', smsRefusal, () =>
      this.client.send(
        new SendTextMessageCommand({
          DestinationPhoneNumber: message.to,
          OriginationIdentity: this.config.originationIdentity,
          MessageBody: message.body,
          MessageType: 'TRANSACTIONAL',
          ConfigurationSetName: this.config.configurationSet,
          // SendTextMessage takes no client token either: the key rides in the context its delivery events log.
          Context: { merchant: message.tenant.merchantId, reference: message.reference, idempotency_key: message.idempotencyKey },
        }),
      ),
    );
    if (!MessageId) throw new Error('End User Messaging accepted the SMS without a message id');
    return { messageId: MessageId };
  }
}
