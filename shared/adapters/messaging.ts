import { PinpointSMSVoiceV2Client } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { runtime } from '../composition.ts';
import { optionalEnv, requireEnv } from '../config.ts';
import type { Mailer, SmsSender } from '../ports/messaging.ts';
import { SesMailer } from './aws/ses-mailer.ts';
import { EndUserSmsSender } from './aws/sms-sender.ts';
import { OutboxMailer, OutboxSmsSender } from './local/outbox-messaging.ts';

/** The channels for this runtime; in AWS their identities are read at cold start of the functions that import them. */
export const mailer: Mailer = runtime.local
  ? new OutboxMailer(runtime.local.outbox, runtime.clock)
  : new SesMailer(new SESv2Client({}), { fromAddress: requireEnv('MAIL_FROM'), configurationSet: optionalEnv('MAIL_CONFIGURATION_SET') });

export const smsSender: SmsSender = runtime.local
  ? new OutboxSmsSender(runtime.local.outbox, runtime.clock)
  : new EndUserSmsSender(new PinpointSMSVoiceV2Client({}), {
      originationIdentity: requireEnv('SMS_ORIGINATION_IDENTITY'),
      configurationSet: optionalEnv('SMS_CONFIGURATION_SET'),
    });
