import { serviceClientSettings } from '../aws-clients.ts';
import { PinpointSMSVoiceV2Client } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { adapterFor } from './adapters.ts';
import type { Mailer, SmsSender } from '../ports/messaging.ts';
import { SesMailer } from '../adapters/aws/ses-mailer.ts';
import { EndUserSmsSender } from '../adapters/aws/sms-sender.ts';
import { channelFromEnv } from '../adapters/channel-config.ts';

/**
 * The channels for this runtime. In AWS each is configured at cold start of the functions that
 * import this module (MAIL_FROM, SMS_ORIGINATION_IDENTITY and their configuration sets, set by CDK
 * from the stack's context); a channel the stack was deployed without refuses every send with
 * ChannelUnavailable, and its client is never built.
 */
export const mailer: Mailer = adapterFor('mailer', () =>
  channelFromEnv('email', (fromAddress, configurationSet) => new SesMailer(new SESv2Client(serviceClientSettings()), { fromAddress, configurationSet })),
);

export const smsSender: SmsSender = adapterFor('smsSender', () =>
  channelFromEnv('sms', (originationIdentity, configurationSet) => new EndUserSmsSender(new PinpointSMSVoiceV2Client(serviceClientSettings()), { originationIdentity, configurationSet })),
);
