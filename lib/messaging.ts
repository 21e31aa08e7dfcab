import { ArnFormat, Stack } from 'aws-cdk-lib';
import { PolicyStatement, type IRole } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { CHANNEL_VARIABLES } from '../shared/adapters/channel-config.ts';
import type { CampaignChannel } from '../shared/model/campaign.ts';
import type { EmailChannelConfig, SmsChannelConfig } from './stack-config.ts';

export interface MessagingProps {
  email?: EmailChannelConfig;
  sms?: SmsChannelConfig;
}

/** What `grantSending` needs of a function: RouteFunction has both. */
export interface MessagingGrantee {
  readonly function: LambdaFunction;
  readonly role: IRole;
}

/** One configured channel as a function receives it: its variables and the one action on exact resources. */
interface ChannelGrant {
  channel: CampaignChannel;
  identity: string;
  configurationSet?: string;
  action: string;
  resources: string[];
}

/**
 * The dunning channels as deployed (context mailFrom, smsOriginationIdentity, ...). A function that
 * sends messages (a job declaring the `messaging` service in shared/jobs.ts) gets each configured
 * channel's variables, which shared/composition/messaging.ts reads at cold start, and the right to send
 * from that identity through that configuration set, nothing more. SES v2 SendEmail authorizes
 * against the sending identity and the configuration set, SendTextMessage against the origination
 * identity and the configuration set, so each grant names exactly those. A channel without context
 * gets neither variables nor rights: the adapter then records its steps as `channel_unavailable`.
 */
export class Messaging {
  constructor(private readonly props: MessagingProps) {}

  grantSending(grantee: MessagingGrantee): void {
    for (const grant of this.grantsIn(Stack.of(grantee.function))) {
      const variables = CHANNEL_VARIABLES[grant.channel];
      grantee.function.addEnvironment(variables.identity, grant.identity);
      if (grant.configurationSet !== undefined) grantee.function.addEnvironment(variables.configurationSet, grant.configurationSet);
      grantee.role.addToPrincipalPolicy(new PolicyStatement({ actions: [grant.action], resources: grant.resources }));
    }
  }

  /** ARNs formed in the function's own stack, so a nested stack needs no parameter for them. */
  private grantsIn(stack: Stack): ChannelGrant[] {
    const arn = (service: string, resource: string, resourceName: string) =>
      stack.formatArn({ service, resource, resourceName, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
    const grants: ChannelGrant[] = [];
    const { email, sms } = this.props;
    if (email) {
      const { configurationSet } = email;
      grants.push({
        channel: 'email',
        identity: email.from,
        configurationSet,
        action: 'ses:SendEmail',
        resources: [arn('ses', 'identity', email.identity), ...(configurationSet === undefined ? [] : [arn('ses', 'configuration-set', configurationSet)])],
      });
    }
    if (sms) {
      const { originationIdentity: origination, configurationSet } = sms;
      // Sent from by its ARN, so what the function sends from is, character for character, what it is granted.
      const originationArn = 'arn' in origination ? origination.arn : arn('sms-voice', origination.resourceType, origination.id);
      grants.push({
        channel: 'sms',
        identity: originationArn,
        configurationSet,
        action: 'sms-voice:SendTextMessage',
        resources: [originationArn, ...(configurationSet === undefined ? [] : [arn('sms-voice', 'configuration-set', configurationSet)])],
      });
    }
    return grants;
  }
}
