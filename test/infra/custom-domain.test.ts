import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { synthesize, type Resource } from './template.ts';

const CERTIFICATE = 'arn:aws:acm:eu-west-1:123456789012:certificate/0f8e3c1a-1111-2222-3333-444455556666';
const ZONE = 'Z0123456789ABCDEFGHIJ';

type Built = ReturnType<typeof synthesize>;

const ofType = (built: Built, type: string): Resource[] =>
  Object.values(built.template.toJSON().Resources as Record<string, Resource>).filter((resource) => resource.Type === type);

/** The stage a custom domain's base path mapping sends requests to, as a resolved reference pair. */
function mappingOf(built: Built, domainName: string) {
  const domains = built.template.toJSON().Resources as Record<string, Resource>;
  const [domainId] = Object.entries(domains).find(([, resource]) => resource.Type === 'AWS::ApiGateway::DomainName' && resource.Properties.DomainName === domainName)!;
  return ofType(built, 'AWS::ApiGateway::BasePathMapping').filter((mapping) => mapping.Properties.DomainName.Ref === domainId);
}

/** The parent stack's outputs (the flattened template holds resources only). */
const outputsOf = (built: Built): Record<string, any> => built.templates[0]!.template.toJSON().Outputs ?? {};

const stageOf = (built: Built, api: 'api' | 'edge') => {
  const routeApi = built.stack[api].api;
  return { RestApiId: built.stack.resolve(routeApi.restApiId), Stage: built.stack.resolve(routeApi.deploymentStage.stageName) };
};

describe('custom domains from context', () => {
  let plain: Built;
  let named: Built;
  let unmanagedDns: Built;
  beforeAll(() => {
    // Prepare
    plain = synthesize();
    named = synthesize({ domainName: 'api.example.com', edgeDomainName: 'cancel.example.com', certificateArn: CERTIFICATE, hostedZoneId: ZONE });
    unmanagedDns = synthesize({ domainName: 'api.example.com', certificateArn: CERTIFICATE });
  });

  it('adds no domain, mapping or record without them', () => {
    for (const type of ['AWS::ApiGateway::DomainName', 'AWS::ApiGateway::BasePathMapping', 'AWS::Route53::RecordSet']) expect(ofType(plain, type), type).toEqual([]);
    expect(Object.keys(outputsOf(plain)).filter((name) => name.includes('Custom') || name.includes('DomainTarget'))).toEqual([]);
  });

  it('gives each API its own regional name with the certificate and TLS 1.2, mapped whole to its stage', () => {
    // Assess
    expect(ofType(named, 'AWS::ApiGateway::DomainName').map((domain) => domain.Properties)).toEqual(
      ['api.example.com', 'cancel.example.com'].map((name) => ({
        DomainName: name,
        EndpointConfiguration: { Types: ['REGIONAL'] },
        RegionalCertificateArn: CERTIFICATE,
        SecurityPolicy: 'TLS_1_2',
      })),
    );
    for (const [name, api] of [['api.example.com', 'api'], ['cancel.example.com', 'edge']] as const) {
      const mappings = mappingOf(named, name);
      expect(mappings, name).toHaveLength(1);
      // No BasePath: the routes already start with /v1, /webhooks or /api.
      expect(mappings[0]!.Properties, name).toEqual({ DomainName: expect.any(Object), ...stageOf(named, api) });
    }
    expect(outputsOf(named)).toMatchObject({ ApiCustomUrl: { Value: 'https://api.example.com' }, EdgeCustomUrl: { Value: 'https://cancel.example.com' } });
  });

  it('points each name at its domain with an alias record in the given hosted zone', () => {
    expect(ofType(named, 'AWS::Route53::RecordSet').map((record) => [record.Properties.Name, record.Properties.Type, record.Properties.HostedZoneId])).toEqual([
      ['api.example.com.', 'A', ZONE],
      ['cancel.example.com.', 'A', ZONE],
    ]);
    for (const record of ofType(named, 'AWS::Route53::RecordSet')) {
      expect(record.Properties.AliasTarget.DNSName['Fn::GetAtt'][1]).toBe('RegionalDomainName');
    }
  });

  it('without a hosted zone, leaves DNS to the operator and says where to point the name; the edge API keeps its own URL only', () => {
    expect(ofType(unmanagedDns, 'AWS::Route53::RecordSet')).toEqual([]);
    expect(ofType(unmanagedDns, 'AWS::ApiGateway::DomainName').map((domain) => domain.Properties.DomainName)).toEqual(['api.example.com']);
    const outputs = outputsOf(unmanagedDns);
    expect(Object.keys(outputs).filter((name) => name.startsWith('Api') && (name.includes('Custom') || name.includes('DomainTarget'))).toSorted()).toEqual(['ApiCustomUrl', 'ApiDomainTarget']);
    expect(outputs.ApiDomainTarget.Value['Fn::GetAtt'][1]).toBe('RegionalDomainName');
  });

  it("tells every merchant-API function where the API is reached (API_BASE_URL, for processors' webhook URLs): the custom name, else the stage's execute-api URL", () => {
    // Prepare
    const functionsOf = (built: Built, api: 'api' | 'edge') =>
      [...built.stack[api].routeFunctions.values(), built.stack[api].fallback].map(
        (fn) => (built.template.toJSON().Resources as Record<string, Resource>)[built.stack.getLogicalId(fn.function.node.defaultChild as CfnFunction)],
      );
    // The stage is cdk.json's (prod).
    const executeApiUrl = {
      'Fn::Join': ['', ['https://', stageOf(plain, 'api').RestApiId, '.execute-api.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }, '/prod']],
    };
    // Assess
    for (const [built, expected] of [[plain, executeApiUrl], [named, 'https://api.example.com']] as const) {
      const merchantApi = functionsOf(built, 'api');
      expect(merchantApi.length).toBeGreaterThan(10);
      for (const fn of merchantApi) expect(fn?.Properties.Environment.Variables.API_BASE_URL).toEqual(expected);
      for (const fn of functionsOf(built, 'edge')) expect(fn?.Properties.Environment.Variables).not.toHaveProperty('API_BASE_URL');
    }
    expect(named.stack.edge.publicUrl).toBe('https://cancel.example.com');
  });

  it('reports no unacknowledged cdk-nag findings', () => {
    expect(new AwsSolutionsChecks(named.app).validateScope(named.stack).violations).toEqual([]);
  });
});
