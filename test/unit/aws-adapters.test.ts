import { CreateScheduleCommand, DeleteScheduleCommand, ConflictException, ResourceNotFoundException, SchedulerClient, UpdateScheduleCommand } from '@aws-sdk/client-scheduler';
import {
  AccountSuspendedException,
  BadRequestException,
  InternalServiceErrorException,
  LimitExceededException,
  MailFromDomainNotVerifiedException,
  MessageRejected,
  NotFoundException,
  SendEmailCommand,
  SendingPausedException,
  SESv2Client,
  TooManyRequestsException,
} from '@aws-sdk/client-sesv2';
import {
  AccessDeniedException,
  ConflictException as SmsConflictException,
  InternalServerException,
  PinpointSMSVoiceV2Client,
  ResourceNotFoundException as SmsResourceNotFoundException,
  SendTextMessageCommand,
  ServiceQuotaExceededException,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { EventBridgeScheduler } from '../../shared/adapters/aws/eventbridge-scheduler.ts';
import { SesMailer } from '../../shared/adapters/aws/ses-mailer.ts';
import { EndUserSmsSender } from '../../shared/adapters/aws/sms-sender.ts';
import { channelFromEnv, UnconfiguredChannel } from '../../shared/adapters/channel-config.ts';
import { ChannelUnavailable, PermanentSendFailure } from '../../shared/ports/messaging.ts';

const tenant = { merchantId: 'mer_1', environment: 'live' as const };

describe('EventBridge Scheduler adapter', () => {
  const scheduler = mockClient(SchedulerClient);
  const adapter = new EventBridgeScheduler(new SchedulerClient({ region: 'eu-west-1' }), {
    groupName: 'PaymentRecovery-prod',
    roleArn: 'arn:aws:iam::123456789012:role/scheduler',
    deadLetterArn: 'arn:aws:sqs:eu-west-1:123456789012:schedules-dead-letter',
    targets: { 'payment-retry': 'arn:aws:lambda:eu-west-1:123456789012:function:retry' },
  });
  beforeEach(() => scheduler.reset());

  it('creates a one-time, self-deleting schedule without a flexible window, with the dead-letter queue, telling the job the second it fires', async () => {
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
        DeadLetterConfig: { Arn: 'arn:aws:sqs:eu-west-1:123456789012:schedules-dead-letter' },
      },
    });
  });

  it('moves an existing schedule with the same name instead of failing, keeping its dead-letter queue', async () => {
    scheduler.on(CreateScheduleCommand).rejects(new ConflictException({ message: 'exists', Message: 'exists', $metadata: {} }));
    scheduler.on(UpdateScheduleCommand).resolves({ ScheduleArn: 'arn:schedule' });
    await adapter.schedule({ id: 'retry-pay_1-1', kind: 'payment-retry', runAt: new Date('2026-11-24T09:00:00Z'), tenant, payload: {} });
    expect(scheduler.commandCalls(UpdateScheduleCommand)[0]!.args[0].input).toMatchObject({
      Name: 'retry-pay_1-1',
      ScheduleExpression: 'at(2026-11-24T09:00:00)',
      Target: { DeadLetterConfig: { Arn: 'arn:aws:sqs:eu-west-1:123456789012:schedules-dead-letter' } },
    });
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
    const sent = await mailer.send({ tenant, to: 'ada@example.com', subject: 'Hi', text: 'text', html: '<p>html</p>', reference: 'enr_1#0', idempotencyKey: 'enr_1#0' });
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
        { Name: 'idempotency_key', Value: 'enr_1_0' },
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
    await sender.send({ tenant, to: '+4915112345678', body: 'Acme: your payment failed.', reference: 'enr_1#1', idempotencyKey: 'enr_1#1' });
    expect(sms.commandCalls(SendTextMessageCommand)[0]!.args[0].input).toEqual({
      DestinationPhoneNumber: '+4915112345678',
      OriginationIdentity: '+15550100',
      MessageBody: 'Acme: your payment failed.',
      MessageType: 'TRANSACTIONAL',
      ConfigurationSetName: undefined,
      Context: { merchant: 'mer_1', reference: 'enr_1#1', idempotency_key: 'enr_1#1' },
    });
  });
});

describe('send failures: refused for good, or left to the scheduler', () => {
  const ses = mockClient(SESv2Client);
  const sms = mockClient(PinpointSMSVoiceV2Client);
  beforeEach(() => {
    ses.reset();
    sms.reset();
  });
  const mailer = new SesMailer(new SESv2Client({ region: 'eu-west-1' }), { fromAddress: 'billing@acme.example' });
  const sender = new EndUserSmsSender(new PinpointSMSVoiceV2Client({ region: 'eu-west-1' }), { originationIdentity: 'arn:aws:sms-voice:eu-west-1:123456789012:pool/pool-1' });
  const email = { tenant, to: 'ada@example.com', subject: 'Hi', text: 'text', html: '<p>html</p>', reference: 'enr_1#0', idempotencyKey: 'enr_1#0' };
  const text = { tenant, to: '+4915112345678', body: 'Hi', reference: 'enr_1#1', idempotencyKey: 'enr_1#1' };
  const client = { $metadata: { httpStatusCode: 400 } };
  const server = { $metadata: { httpStatusCode: 500 } };
  const network = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
  /** The send fails with PermanentSendFailure carrying the refusal, the code and the SDK error, and a message without the recipient. */
  async function expectRefusal(send: Promise<unknown>, expected: { channel: string; refusal: string; code: string; cause: Error }, recipient: string) {
    const failure = await send.catch((caught: unknown) => caught);
    expect(failure).toBeInstanceOf(PermanentSendFailure);
    expect(failure).toMatchObject(expected);
    expect((failure as Error).message).not.toContain(recipient);
  }

  it.each([
    {
      error: new MessageRejected({ message: 'Email address is not verified. The following identities failed the check in region EU-WEST-1: ada@example.com', ...client }),
      refusal: 'recipient_rejected',
      code: 'MessageRejected',
    },
    { error: new BadRequestException({ message: 'Illegal address: ada@example.com', ...client }), refusal: 'recipient_rejected', code: 'BadRequestException' },
    { error: new MailFromDomainNotVerifiedException({ message: 'MAIL FROM domain is not verified', ...client }), refusal: 'sender_rejected', code: 'MailFromDomainNotVerifiedException' },
    { error: new NotFoundException({ message: 'Configuration set <recovery> does not exist.', ...client }), refusal: 'sender_rejected', code: 'NotFoundException' },
  ])('SES $code is a permanent refusal ($refusal), whose message quotes no address', async ({ error, refusal, code }) => {
    ses.on(SendEmailCommand).rejects(error);
    await expectRefusal(mailer.send(email), { channel: 'email', refusal, code, cause: error }, email.to);
  });

  it.each([
    ['TooManyRequestsException', new TooManyRequestsException({ message: 'Too many requests', ...client })],
    ['LimitExceededException', new LimitExceededException({ message: 'Maximum sending rate exceeded', ...client })],
    ['SendingPausedException (account-wide)', new SendingPausedException({ message: 'Sending is paused for this account', ...client })],
    ['AccountSuspendedException (account-wide)', new AccountSuspendedException({ message: 'Your account is suspended', ...client })],
    ['InternalServiceErrorException (5xx)', new InternalServiceErrorException({ message: 'Internal failure', ...server })],
    ['a network error', network()],
  ])('SES %s fails the send as it came, so the job fails and the scheduler retries it', async (_label, error) => {
    ses.on(SendEmailCommand).rejects(error);
    await expect(mailer.send(email)).rejects.toBe(error);
  });

  it.each([
    { error: new ValidationException({ message: 'Invalid destination', Reason: 'INVALID_PARAMETER', ...client }), refusal: 'recipient_rejected', code: 'ValidationException/INVALID_PARAMETER' },
    {
      error: new ValidationException({ message: 'Destination country is blocked', Reason: 'DESTINATION_COUNTRY_BLOCKED', ...client }),
      refusal: 'recipient_rejected',
      code: 'ValidationException/DESTINATION_COUNTRY_BLOCKED',
    },
    {
      error: new SmsConflictException({ message: 'Opted out', Reason: 'DESTINATION_PHONE_NUMBER_OPTED_OUT', ResourceType: 'opted-out-number', ResourceId: '+4915112345678', ...client }),
      refusal: 'recipient_rejected',
      code: 'ConflictException/DESTINATION_PHONE_NUMBER_OPTED_OUT',
    },
    {
      error: new ValidationException({ message: 'Sender ID is not registered', Reason: 'SENDER_ID_NOT_REGISTERED', ...client }),
      refusal: 'sender_rejected',
      code: 'ValidationException/SENDER_ID_NOT_REGISTERED',
    },
    {
      error: new SmsConflictException({ message: 'Pool is not active', Reason: 'RESOURCE_NOT_ACTIVE', ResourceType: 'pool', ResourceId: 'pool-1', ...client }),
      refusal: 'sender_rejected',
      code: 'ConflictException/RESOURCE_NOT_ACTIVE',
    },
    { error: new SmsResourceNotFoundException({ message: 'Pool not found', ResourceType: 'pool', ResourceId: 'pool-1', ...client }), refusal: 'sender_rejected', code: 'ResourceNotFoundException' },
    { error: new AccessDeniedException({ message: 'not authorized to perform: sms-voice:SendTextMessage', ...client }), refusal: 'sender_rejected', code: 'AccessDeniedException' },
  ])('End User Messaging $code is a permanent refusal ($refusal), whose message quotes no number', async ({ error, refusal, code }) => {
    sms.on(SendTextMessageCommand).rejects(error);
    await expectRefusal(sender.send(text), { channel: 'sms', refusal, code, cause: error }, text.to);
  });

  it.each([
    ['ThrottlingException', new ThrottlingException({ message: 'Rate exceeded', ...client })],
    [
      'ServiceQuotaExceededException/MONTHLY_SPEND_LIMIT_REACHED_FOR_TEXT',
      new ServiceQuotaExceededException({ message: 'Monthly spend limit reached', Reason: 'MONTHLY_SPEND_LIMIT_REACHED_FOR_TEXT', ...client }),
    ],
    ['AccessDeniedException/ACCOUNT_DISABLED (account-wide)', new AccessDeniedException({ message: 'Account disabled', Reason: 'ACCOUNT_DISABLED', ...client })],
    ['InternalServerException (5xx)', new InternalServerException({ message: 'Internal failure', ...server })],
    ['a network error', network()],
  ])('End User Messaging %s fails the send as it came, so the job fails and the scheduler retries it', async (_label, error) => {
    sms.on(SendTextMessageCommand).rejects(error);
    await expect(sender.send(text)).rejects.toBe(error);
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
  const email = { tenant, to: 'ada@example.com', subject: 'Hi', text: 'text', html: '<p>html</p>', reference: 'enr_1#0', idempotencyKey: 'enr_1#0' };

  it('sends with the identity and configuration set the stack set', async () => {
    // Prepare
    ses.on(SendEmailCommand).resolves({ MessageId: 'ses-2' });
    sms.on(SendTextMessageCommand).resolves({ MessageId: 'sms-2' });
    const pool = 'arn:aws:sms-voice:eu-west-1:123456789012:pool/pool-6d10cd5f1ee849db9525c2310dc23e96';
    // Act
    await sesMailer({ MAIL_FROM: 'billing@acme.example', MAIL_CONFIGURATION_SET: 'recovery-mail' }).send(email);
    await smsSender({ SMS_ORIGINATION_IDENTITY: pool, SMS_CONFIGURATION_SET: 'recovery-sms' }).send({ tenant, to: '+4915112345678', body: 'Hi', reference: 'enr_1#1', idempotencyKey: 'enr_1#1' });
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
    await expect(sender.send({ tenant, to: '+4915112345678', body: 'Hi', reference: 'enr_1#1', idempotencyKey: 'enr_1#1' })).rejects.toThrow(
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
