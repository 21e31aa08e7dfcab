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

  it('takes -c flag=false as false', () => {
    expect(configFrom({ apiGatewayCloudWatchRole: 'false' }).apiGatewayCloudWatchRole).toBe(false);
  });
});
