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

  it('takes -c flag=false as false', () => {
    expect(configFrom({ apiGatewayCloudWatchRole: 'false' }).apiGatewayCloudWatchRole).toBe(false);
  });
});
