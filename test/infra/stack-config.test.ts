import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { readStackConfig } from '../../lib/stack-config.ts';

const configFrom = (context: Record<string, unknown>) => readStackConfig(new App({ context }).node);

describe('stack configuration from CDK context', () => {
  it('defaults to stage prod, no CORS origins, no alarm email, and sets the API Gateway logging role', () => {
    expect(configFrom({})).toEqual({ stage: 'prod', corsOrigins: [], apiGatewayCloudWatchRole: true });
  });

  it('reads comma-separated origins from the command line and arrays from cdk.json', () => {
    expect(configFrom({ corsOrigins: ' https://a.example.com, http://localhost:5173 ,' }).corsOrigins).toEqual([
      'https://a.example.com',
      'http://localhost:5173',
    ]);
    expect(configFrom({ corsOrigins: ['https://a.example.com'] }).corsOrigins).toEqual(['https://a.example.com']);
  });

  it('rejects values that would deploy something other than what was meant', () => {
    expect(() => configFrom({ corsOrigins: 'https://a.example.com/' })).toThrow(/not an origin/);
    expect(() => configFrom({ corsOrigins: 'a.example.com' })).toThrow(/not an origin/);
    expect(() => configFrom({ corsOrigins: '*,https://a.example.com' })).toThrow(/cannot be combined/);
    expect(() => configFrom({ stage: 'my stage' })).toThrow(/stage/);
    expect(() => configFrom({ alarmEmail: 'ops' })).toThrow(/email/);
    expect(() => configFrom({ apiGatewayCloudWatchRole: 'no' })).toThrow(/true or false/);
  });

  it('reads an optional custom domain: the API name and certificate together, the edge name and hosted zone with them', () => {
    // Prepare
    const certificateArn = 'arn:aws:acm:eu-west-1:123456789012:certificate/0f8e3c1a-1111-2222-3333-444455556666';
    // Assess
    expect(configFrom({}).customDomain).toBeUndefined();
    expect(configFrom({ domainName: 'api.example.com', certificateArn }).customDomain).toEqual({ domainName: 'api.example.com', certificateArn });
    expect(configFrom({ domainName: 'api.example.com', edgeDomainName: 'cancel.example.com', certificateArn, hostedZoneId: 'Z0123456789ABCDEFGHIJ' }).customDomain).toEqual({
      domainName: 'api.example.com',
      edgeDomainName: 'cancel.example.com',
      certificateArn,
      hostedZoneId: 'Z0123456789ABCDEFGHIJ',
    });
    expect(() => configFrom({ domainName: 'api.example.com' })).toThrow(/'domainName' needs both 'domainName' and 'certificateArn'/);
    expect(() => configFrom({ certificateArn, edgeDomainName: 'cancel.example.com' })).toThrow(/needs both/);
    expect(() => configFrom({ domainName: 'https://api.example.com', certificateArn })).toThrow(/domainName/);
    expect(() => configFrom({ domainName: 'api.example.com', certificateArn: 'arn:aws:iam::123456789012:role/x' })).toThrow(/certificateArn/);
    expect(() => configFrom({ domainName: 'api.example.com', certificateArn, hostedZoneId: 'example.com' })).toThrow(/hostedZoneId/);
    expect(() => configFrom({ domainName: 'api.example.com', edgeDomainName: 'api.example.com', certificateArn })).toThrow(/must differ/);
  });

  it('reads the email channel: the sender, its SES identity (the sender\'s domain by default) and an optional configuration set', () => {
    expect(configFrom({}).email).toBeUndefined();
    expect(configFrom({ mailFrom: 'billing@Example.com' }).email).toEqual({ from: 'billing@Example.com', identity: 'example.com' });
    expect(configFrom({ mailFrom: 'Acme Billing <billing@mail.example.com>', mailIdentity: 'example.com', mailConfigurationSet: 'recovery_mail-1' }).email).toEqual({
      from: 'Acme Billing <billing@mail.example.com>',
      identity: 'example.com',
      configurationSet: 'recovery_mail-1',
    });
    expect(configFrom({ mailFrom: 'billing@example.com', mailIdentity: 'billing@example.com' }).email).toEqual({ from: 'billing@example.com', identity: 'billing@example.com' });
  });

  it('refuses an email channel SES could not send from', () => {
    expect(() => configFrom({ mailFrom: 'billing' })).toThrow(/Context 'mailFrom' is not an email address/);
    expect(() => configFrom({ mailFrom: 'Billing <billing@localhost>' })).toThrow(/'mailFrom' is not an email address/);
    expect(() => configFrom({ mailFrom: 'billing@example.com', mailIdentity: 'example.org' })).toThrow(/'mailIdentity' \(example.org\) does not cover the mailFrom address billing@example.com/);
    expect(() => configFrom({ mailFrom: 'billing@notexample.com', mailIdentity: 'example.com' })).toThrow(/does not cover/);
    expect(() => configFrom({ mailFrom: 'billing@example.com', mailIdentity: 'other@example.com' })).toThrow(/does not cover/);
    expect(() => configFrom({ mailFrom: 'billing@example.com', mailIdentity: 'Example.com' })).toThrow(/'mailIdentity' is not a verified SES identity/);
    expect(() => configFrom({ mailFrom: 'billing@example.com', mailConfigurationSet: 'has space' })).toThrow(/'mailConfigurationSet' is not an SES configuration set name/);
    expect(() => configFrom({ mailIdentity: 'example.com', mailConfigurationSet: 'recovery' })).toThrow(/Context 'mailIdentity', 'mailConfigurationSet' needs 'mailFrom'/);
  });

  it('reads the sms origination identity as an id in the stack\'s account or an ARN, and an optional configuration set', () => {
    const senderId = 'arn:aws:sms-voice:eu-west-1:123456789012:sender-id/ACME/GB';
    const phoneArn = 'arn:aws:sms-voice:us-east-1:123456789012:phone-number/phone-a35b5011d15b4d938b008ca1102e9658';
    const poolArn = 'arn:aws:sms-voice:eu-west-1:123456789012:pool/pool-6d10cd5f1ee849db9525c2310dc23e96';
    expect(configFrom({}).sms).toBeUndefined();
    expect(configFrom({ smsOriginationIdentity: 'phone-a35b5011d15b4d938b008ca1102e9658' }).sms).toEqual({
      originationIdentity: { resourceType: 'phone-number', id: 'phone-a35b5011d15b4d938b008ca1102e9658' },
    });
    expect(configFrom({ smsOriginationIdentity: 'pool-6d10cd5f1ee849db9525c2310dc23e96', smsConfigurationSet: 'recovery-sms' }).sms).toEqual({
      originationIdentity: { resourceType: 'pool', id: 'pool-6d10cd5f1ee849db9525c2310dc23e96' },
      configurationSet: 'recovery-sms',
    });
    for (const arn of [senderId, phoneArn, poolArn]) expect(configFrom({ smsOriginationIdentity: arn }).sms).toEqual({ originationIdentity: { arn } });
  });

  it('refuses sms origination identities no grant can name exactly', () => {
    expect(() => configFrom({ smsOriginationIdentity: '+12065550100' })).toThrow(/is a phone number; give its id \(phone-…\) or ARN/);
    expect(() => configFrom({ smsOriginationIdentity: 'ACME' })).toThrow(/a sender ID is given by its ARN/);
    expect(() => configFrom({ smsOriginationIdentity: 'arn:aws:sms-voice:eu-west-1:123456789012:sender-id/ACME' })).toThrow(/smsOriginationIdentity/);
    expect(() => configFrom({ smsOriginationIdentity: 'arn:aws:sms-voice:eu-west-1:123456789012:opt-out-list/Default' })).toThrow(/smsOriginationIdentity/);
    expect(() => configFrom({ smsOriginationIdentity: 'pool-1', smsConfigurationSet: 'a/b' })).toThrow(/'smsConfigurationSet' is not an End User Messaging configuration set name/);
    expect(() => configFrom({ smsConfigurationSet: 'recovery-sms' })).toThrow(/Context 'smsConfigurationSet' needs 'smsOriginationIdentity'/);
  });

  it('takes -c flag=false as false', () => {
    expect(configFrom({ apiGatewayCloudWatchRole: 'false' }).apiGatewayCloudWatchRole).toBe(false);
  });
});
