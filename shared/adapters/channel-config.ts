import { optionalEnv } from '../config.ts';
import type { CampaignChannel } from '../model/campaign.ts';
import { ChannelUnavailable, type EmailMessage, type Mailer, type SentMessage, type SmsMessage, type SmsSender } from '../ports/messaging.ts';

/** Where each channel's AWS configuration is read from; CDK (lib/messaging.ts) sets the same names. */
export const CHANNEL_VARIABLES = {
  email: { identity: 'MAIL_FROM', configurationSet: 'MAIL_CONFIGURATION_SET' },
  sms: { identity: 'SMS_ORIGINATION_IDENTITY', configurationSet: 'SMS_CONFIGURATION_SET' },
} as const satisfies Record<CampaignChannel, { identity: string; configurationSet: string }>;

/** Stands in for a channel the deployment has no identity for: every send is refused with ChannelUnavailable. */
export class UnconfiguredChannel implements Mailer, SmsSender {
  constructor(
    readonly channel: CampaignChannel,
    private readonly missing: string,
  ) {}

  async send(_message: EmailMessage | SmsMessage): Promise<SentMessage> {
    throw new ChannelUnavailable(this.channel, this.missing);
  }
}

/**
 * A channel's AWS adapter, configured at cold start. The identity variable decides whether the
 * deployment has the channel at all (a stack may be deployed with email only, sms only, or neither);
 * a configuration set without an identity is a deployment mistake and fails the cold start.
 */
export function channelFromEnv<T>(
  channel: CampaignChannel,
  build: (identity: string, configurationSet: string | undefined) => T,
  env: NodeJS.ProcessEnv = process.env,
): T | UnconfiguredChannel {
  const variables = CHANNEL_VARIABLES[channel];
  const identity = optionalEnv(variables.identity, env);
  const configurationSet = optionalEnv(variables.configurationSet, env);
  if (identity !== undefined) return build(identity, configurationSet);
  if (configurationSet !== undefined) {
    throw new Error(`Inconsistent configuration: ${variables.configurationSet} is set but ${variables.identity} is not`);
  }
  return new UnconfiguredChannel(channel, variables.identity);
}
