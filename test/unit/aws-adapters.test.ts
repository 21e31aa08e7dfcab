import { CreateScheduleCommand, DeleteScheduleCommand, ConflictException, ResourceNotFoundException, SchedulerClient, UpdateScheduleCommand } from '@aws-sdk/client-scheduler';
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { PinpointSMSVoiceV2Client, SendTextMessageCommand } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { EventBridgeScheduler } from '../../shared/adapters/aws/eventbridge-scheduler.ts';
import { SesMailer } from '../../shared/adapters/aws/ses-mailer.ts';
import { EndUserSmsSender } from '../../shared/adapters/aws/sms-sender.ts';
import { channelFromEnv, UnconfiguredChannel } from '../../shared/adapters/channel-config.ts';
import { ChannelUnavailable } from '../../shared/ports/messaging.ts';

const tenant = { merchantId: 'mer_1', environment: 'live' as const };

describe('EventBridge Scheduler adapter', () => {
  const scheduler = mockClient(SchedulerClient);
  const adapter = new EventBridgeScheduler(new SchedulerClient({ region: 'eu-west-1' }), {
    groupName: 'PaymentRecovery-prod',
    roleArn: 'arn:aws:iam::123456789012:role/scheduler',
    targets: { 'payment-retry': 'arn:aws:lambda:eu-west-1:123456789012:function:retry' },
  });
  beforeEach(() => scheduler.reset());

  it('creates a one-time, self-deleting schedule without a flexible window, telling the job the second it fires', async () => {
    // Prepare
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:schedule' });
    // Act
    await adapter.schedule({ id: 'retry-pay_1-1', kind: 'payment-retry', runAt: new Date('2026-11-23T09:00:00.750Z'), tenant, payload: { payment_id: 'pay_1', attempt: 1 } });
    // Assess
    expect(scheduler.commandCalls(CreateScheduleCommand)[0]!.args[0].input).toEqual({
      Name: 'retry-pay_1-1',
      GroupName: 'PaymentRecovery-prod',
      ScheduleExpression: 'at(2026-11-23T09:00:00)',
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      Target: {
        Arn: 'arn:aws:lambda:eu-west-1:123456789012:function:retry',
        RoleArn: 'arn:aws:iam::123456789012:role/scheduler',
        Input: JSON.stringify({
          jobId: 'retry-pay_1-1',
          kind: 'payment-retry',
          tenant,
          payload: { payment_id: 'pay_1', attempt: 1 },
          scheduledAt: '2026-11-23T09:00:00.000Z',
        }),
      },
    });
  });

  it('moves an existing schedule with the same name instead of failing', async () => {
    scheduler.on(CreateScheduleCommand).rejects(new ConflictException({ message: 'exists', Message: 'exists', $metadata: {} }));
    scheduler.on(UpdateScheduleCommand).resolves({ ScheduleArn: 'arn:schedule' });
    await adapter.schedule({ id: 'retry-pay_1-1', kind: 'payment-retry', runAt: new Date('2026-11-24T09:00:00Z'), tenant, payload: {} });
    expect(scheduler.commandCalls(UpdateScheduleCommand)[0]!.args[0].input).toMatchObject({ Name: 'retry-pay_1-1', ScheduleExpression: 'at(2026-11-24T09:00:00)' });
  });

  it('deletes on cancel and treats an already-gone schedule as done', async () => {
    scheduler.on(DeleteScheduleCommand).rejects(new ResourceNotFoundException({ message: 'gone', Message: 'gone', $metadata: {} }));
    await expect(adapter.cancel('retry-pay_1-1')).resolves.toBeUndefined();
    expect(scheduler.commandCalls(DeleteScheduleCommand)[0]!.args[0].input).toEqual({ Name: 'retry-pay_1-1', GroupName: 'PaymentRecovery-prod' });
  });

  it('refuses ids EventBridge would reject, and kinds without a target', async () => {
    await expect(adapter.schedule({ id: 'bad id!', kind: 'payment-retry', runAt: new Date(), tenant, payload: {} })).rejects.toThrow('Invalid job id');
    await expect(adapter.schedule({ id: 'step-1', kind: 'campaign-step', runAt: new Date(), tenant, payload: {} })).rejects.toThrow('No scheduler target');
  });
});

describe('SES mailer', () => {
  const ses = mockClient(SESv2Client);
  beforeEach(() => ses.reset());

  it('sends a simple UTF-8 email from the configured identity with tags', async () => {
    ses.on(SendEmailCommand).resolves({ MessageId: 'ses-1' });
    const mailer = new SesMailer(new SESv2Client({ region: 'eu-west-1' }), { fromAddress: 'Billing <billing@acme.example>', configurationSet: 'recovery' });
    const sent = await mailer.send({ tenant, to: 'ada@example.com', subject: 'Hi', text: 'text', html: '<p>html</p>', reference: 'enr_1#0' });
    expect(sent).toEqual({ messageId: 'ses-1' });
    expect(ses.commandCalls(SendEmailCommand)[0]!.args[0].input).toEqual({
      FromEmailAddress: 'Billing <billing@acme.example>',
      Destination: { ToAddresses: ['ada@example.com'] },
      Content: {
        Simple: {
          Subject: { Data: 'Hi', Charset: 'UTF-8' },
          Body: { Text: { Data: 'text', Charset: 'UTF-8' }, Html: { Data: '<p>html</p>', Charset: 'UTF-8' } },
        },
      },
      ConfigurationSetName: 'recovery',
      EmailTags: [
        { Name: 'merchant', Value: 'mer_1' },
        { Name: 'reference', Value: 'enr_1_0' },
      ],
    });
  });
});

describe('End User Messaging SMS sender', () => {
  const sms = mockClient(PinpointSMSVoiceV2Client);
  beforeEach(() => sms.reset());

  it('sends a transactional text from the configured origination identity', async () => {
    sms.on(SendTextMessageCommand).resolves({ MessageId: 'sms-1' });
    const sender = new EndUserSmsSender(new PinpointSMSVoiceV2Client({ region: 'eu-west-1' }), { originationIdentity: '+15550100' });
    await sender.send({ tenant, to: '+4915112345678', body: 'Acme: your payment failed.', reference: 'enr_1#1' });
    expect(sms.commandCalls(SendTextMessageCommand)[0]!.args[0].input).toEqual({
      DestinationPhoneNumber: '+4915112345678',
      OriginationIdentity: '+15550100',
      MessageBody: 'Acme: your payment failed.',
      MessageType: 'TRANSACTIONAL',
      ConfigurationSetName: undefined,
      Context: { merchant: 'mer_1', reference: 'enr_1#1' },
    });
  });
});

describe('channels configured from the environment', () => {
  const ses = mockClient(SESv2Client);
  const sms = mockClient(PinpointSMSVoiceV2Client);
  beforeEach(() => {
    ses.reset();
    sms.reset();
  });
  const sesMailer = (env: NodeJS.ProcessEnv) =>
    channelFromEnv('email', (fromAddress, configurationSet) => new SesMailer(new SESv2Client({ region: 'eu-west-1' }), { fromAddress, configurationSet }), env);
  const smsSender = (env: NodeJS.ProcessEnv) =>
    channelFromEnv('sms', (originationIdentity, configurationSet) => new EndUserSmsSender(new PinpointSMSVoiceV2Client({ region: 'eu-west-1' }), { originationIdentity, configurationSet }), env);
  const email = { tenant, to: 'ada@example.com', subject: 'Hi', text: 'text', html: '<p>html</p>', reference: 'enr_1#0' };

  it('sends with the identity and configuration set the stack set', async () => {
    // Prepare
    ses.on(SendEmailCommand).resolves({ MessageId: 'ses-2' });
    sms.on(SendTextMessageCommand).resolves({ MessageId: 'sms-2' });
    const pool = 'arn:aws:sms-voice:eu-west-1:123456789012:pool/pool-6d10cd5f1ee849db9525c2310dc23e96';
    // Act
    await sesMailer({ MAIL_FROM: 'billing@acme.example', MAIL_CONFIGURATION_SET: 'recovery-mail' }).send(email);
    await smsSender({ SMS_ORIGINATION_IDENTITY: pool, SMS_CONFIGURATION_SET: 'recovery-sms' }).send({ tenant, to: '+4915112345678', body: 'Hi', reference: 'enr_1#1' });
    // Assess
    expect(ses.commandCalls(SendEmailCommand)[0]!.args[0].input).toMatchObject({ FromEmailAddress: 'billing@acme.example', ConfigurationSetName: 'recovery-mail' });
    expect(sms.commandCalls(SendTextMessageCommand)[0]!.args[0].input).toMatchObject({ OriginationIdentity: pool, ConfigurationSetName: 'recovery-sms' });
  });

  it('refuses every send on a channel deployed without its identity, without calling AWS', async () => {
    // Act
    const mailer = sesMailer({});
    const sender = smsSender({ MAIL_FROM: 'billing@acme.example' });
    // Assess
    expect(mailer).toBeInstanceOf(UnconfiguredChannel);
    await expect(mailer.send(email)).rejects.toBeInstanceOf(ChannelUnavailable);
    await expect(mailer.send(email)).rejects.toMatchObject({ channel: 'email', message: 'The email channel is not configured for this deployment: MAIL_FROM is not set' });
    await expect(sender.send({ tenant, to: '+4915112345678', body: 'Hi', reference: 'enr_1#1' })).rejects.toThrow(
      'The sms channel is not configured for this deployment: SMS_ORIGINATION_IDENTITY is not set',
    );
    expect(ses.calls()).toHaveLength(0);
    expect(sms.calls()).toHaveLength(0);
  });

  it('fails the cold start on a configuration set without its identity', () => {
    expect(() => sesMailer({ MAIL_CONFIGURATION_SET: 'recovery-mail' })).toThrow('Inconsistent configuration: MAIL_CONFIGURATION_SET is set but MAIL_FROM is not');
    expect(() => smsSender({ SMS_CONFIGURATION_SET: 'recovery-sms' })).toThrow('Inconsistent configuration: SMS_CONFIGURATION_SET is set but SMS_ORIGINATION_IDENTITY is not');
  });
});
