import { beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../lib/dashboard-headers.ts';
import { isDeploymentHelper, synthesize, type Resource } from './template.ts';

type Built = ReturnType<typeof synthesize>;

let built: Built;
let parent: Record<string, Resource>;

const ofType = (type: string): [string, Resource][] => Object.entries(parent).filter(([, resource]) => resource.Type === type);
const only = (type: string): Resource => {
  const found = ofType(type);
  expect(found, type).toHaveLength(1);
  return found[0]![1];
};

beforeAll(() => {
  // Prepare
  built = synthesize();
  parent = built.templates[0]!.resources;
});

describe('dashboard distribution', () => {
  it('serves the app from a private bucket only CloudFront may read, through origin access control', () => {
    const [siteId, site] = ofType('AWS::S3::Bucket').find(([, bucket]) => bucket.Properties.VersioningConfiguration)!;
    expect(site.Properties.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
    expect(site.Properties.LoggingConfiguration).toMatchObject({ LogFilePrefix: 'site/' });
    const distribution = only('AWS::CloudFront::Distribution').Properties.DistributionConfig;
    const s3Origin = distribution.Origins.find((origin: any) => origin.S3OriginConfig);
    expect(s3Origin.OriginAccessControlId).toBeDefined();
    expect(s3Origin.S3OriginConfig.OriginAccessIdentity).toBe('');
    expect(only('AWS::CloudFront::OriginAccessControl').Properties.OriginAccessControlConfig).toMatchObject({ OriginAccessControlOriginType: 's3', SigningBehavior: 'always' });
    // The bucket policy admits the CloudFront service for this distribution only, and refuses plain HTTP.
    const policy = ofType('AWS::S3::BucketPolicy').find(([, candidate]) => candidate.Properties.Bucket.Ref === siteId)![1];
    const statements = policy.Properties.PolicyDocument.Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Action: 's3:GetObject',
        Condition: { StringEquals: { 'AWS:SourceArn': expect.anything() } },
      }),
    );
    expect(statements).toContainEqual(expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
    expect(distribution.Logging).toMatchObject({ Prefix: 'cloudfront/' });
  });

  it('sends /v1/* to the REST API uncached, with every viewer header but Host', () => {
    const distribution = only('AWS::CloudFront::Distribution').Properties.DistributionConfig;
    const [api] = distribution.CacheBehaviors.filter((behavior: any) => behavior.PathPattern === '/v1/*');
    expect(api).toMatchObject({
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
      ViewerProtocolPolicy: 'https-only',
      CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad', // Managed-CachingDisabled
      OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac', // Managed-AllViewerExceptHostHeader
    });
    const apiOrigin = distribution.Origins.find((origin: any) => origin.Id === api.TargetOriginId);
    expect(apiOrigin.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only' });
    expect(JSON.stringify(apiOrigin.DomainName)).toContain(built.stack.resolve(built.stack.api.api.restApiId).Ref);
    expect(JSON.stringify(apiOrigin.OriginPath)).toContain(built.stack.resolve(built.stack.api.api.deploymentStage.stageName).Ref ?? 'prod');
  });

  it('answers every page with the strict CSP, HSTS and the other security headers', () => {
    const distribution = only('AWS::CloudFront::Distribution').Properties.DistributionConfig;
    expect(distribution.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    const config = only('AWS::CloudFront::ResponseHeadersPolicy').Properties.ResponseHeadersPolicyConfig;
    expect(config.SecurityHeadersConfig).toEqual({
      ContentSecurityPolicy: { ContentSecurityPolicy: CONTENT_SECURITY_POLICY, Override: true },
      ContentTypeOptions: { Override: true },
      FrameOptions: { FrameOption: 'DENY', Override: true },
      ReferrerPolicy: { ReferrerPolicy: 'no-referrer', Override: true },
      StrictTransportSecurity: { AccessControlMaxAgeSec: 63_072_000, IncludeSubdomains: true, Preload: true, Override: true },
    });
    expect(CONTENT_SECURITY_POLICY).toMatch(/default-src 'none'.*script-src 'self'.*connect-src 'self'.*frame-ancestors 'none'/);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-|\*/);
    expect(config.CustomHeadersConfig.Items.map((item: any) => item.Header).sort()).toEqual(['Cross-Origin-Opener-Policy', 'Permissions-Policy']);
    expect(distribution.DefaultCacheBehavior.ResponseHeadersPolicyId).toBeDefined();
    // The app's pages all load its index.html, and / leads to it.
    const routing = only('AWS::CloudFront::Function').Properties;
    expect(routing.FunctionCode).toContain("request.uri = '/dashboard/index.html'");
    expect(distribution.DefaultCacheBehavior.FunctionAssociations).toEqual([{ EventType: 'viewer-request', FunctionARN: expect.anything() }]);
  });

  it('deploys the built app under dashboard/: assets cached for good, the page revalidated and invalidated', () => {
    const deployments = ofType('Custom::CDKBucketDeployment').map(([, resource]) => resource.Properties);
    expect(deployments).toHaveLength(2);
    for (const deployment of deployments) expect(deployment).toMatchObject({ DestinationBucketKeyPrefix: 'dashboard/', Prune: false });
    expect(deployments.map((deployment) => deployment.SystemMetadata['cache-control']).sort()).toEqual(['no-cache', 'public, max-age=31536000, immutable']);
    expect(deployments.find((deployment) => deployment.DistributionPaths)?.DistributionPaths).toEqual(['/dashboard/index.html']);
  });

  it("limits CDK's deployment handler to copying into the site bucket and invalidating the page", () => {
    const siteId = ofType('AWS::S3::Bucket').find(([, bucket]) => bucket.Properties.VersioningConfiguration)![0];
    const policies = ofType('AWS::IAM::Policy').filter(([id]) => isDeploymentHelper(id));
    expect(policies).toHaveLength(1);
    const statements = policies[0]![1].Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[];
    for (const statement of statements) {
      const resources = JSON.stringify(statement.Resource);
      const actions = ([] as string[]).concat(statement.Action);
      if (actions.every((action) => action.startsWith('cloudfront:'))) expect([...actions].sort()).toEqual(['cloudfront:CreateInvalidation', 'cloudfront:GetInvalidation']);
      else expect(resources.includes(siteId) || resources.includes('cdk-hnb659fds-assets'), resources).toBe(true);
    }
  });

  it('gives the dashboard URL as a stack output', () => {
    const outputs = built.templates[0]!.template.toJSON().Outputs;
    const [scheme, host, path] = outputs.DashboardUrl.Value['Fn::Join'][1];
    expect([scheme, path]).toEqual(['https://', '/dashboard/']);
    expect(host['Fn::GetAtt'][1]).toBe('DomainName');
    expect(parent[host['Fn::GetAtt'][0]]?.Type).toBe('AWS::CloudFront::Distribution');
  });
});
