import { existsSync } from 'node:fs';
import { DefaultStackSynthesizer, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { RestApiOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, type CfnBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { DASHBOARD_DIST } from '../bin/dashboard-build.ts';
import { CONTENT_SECURITY_POLICY, DASHBOARD_HEADERS, DASHBOARD_PATH } from './dashboard-headers.ts';

export interface DashboardProps {
  /** The merchant REST API the app calls: served by the same distribution under /v1/*, so the app needs no CORS. */
  api: RestApi;
}

/**
 * The merchant dashboard: the built app (dashboard/dist) in a private bucket read only by CloudFront
 * (origin access control), served at /dashboard/ under strict security headers, with /v1/* sent by
 * the same distribution to the REST API uncached, every viewer header but Host forwarded.
 */
export class Dashboard extends Construct {
  readonly distribution: Distribution;
  readonly bucket: Bucket;
  readonly url: string;

  constructor(scope: Construct, id: string, props: DashboardProps) {
    super(scope, id);
    if (!existsSync(DASHBOARD_DIST)) throw new Error(`${DASHBOARD_DIST} is missing: build the dashboard first (npm run dashboard; npm ci does it)`);

    const logs = new Bucket(this, 'Logs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // CloudFront's standard logs are written with ACLs.
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.bucket = new Bucket(this, 'Site', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      serverAccessLogsBucket: logs,
      serverAccessLogsPrefix: 'site/',
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const headers = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'Dashboard: strict CSP, HSTS and the other security headers',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: CONTENT_SECURITY_POLICY, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(730), includeSubdomains: true, preload: true, override: true },
      },
      customHeadersBehavior: {
        customHeaders: ['Permissions-Policy', 'Cross-Origin-Opener-Policy'].map((header) => ({ header, value: DASHBOARD_HEADERS[header]!, override: true })),
      },
    });

    // The app routes by path: every page under /dashboard/ is its index.html; `/` leads there.
    const routing = new CloudFrontFunction(this, 'Routing', {
      runtime: FunctionRuntime.JS_2_0,
      comment: 'Dashboard pages to the app, / to /dashboard/',
      code: FunctionCode.fromInline(`function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri === '/' || uri === '${DASHBOARD_PATH}') {
    return { statusCode: 302, statusDescription: 'Found', headers: { location: { value: '${DASHBOARD_PATH}/' } } };
  }
  if (uri.startsWith('${DASHBOARD_PATH}/') && !uri.startsWith('${DASHBOARD_PATH}/assets/')) request.uri = '${DASHBOARD_PATH}/index.html';
  return request;
}`),
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Merchant dashboard and its API',
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: logs,
      logFilePrefix: 'cloudfront/',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
        functionAssociations: [{ function: routing, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        '/v1/*': {
          origin: new RestApiOrigin(props.api),
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        },
      },
    });

    // Hashed assets never change under their name; index.html is checked on every load. Old assets
    // are kept (no pruning), so a tab opened before a deployment can still load its chunks.
    const deployment = { destinationBucket: this.bucket, destinationKeyPrefix: `${DASHBOARD_PATH.slice(1)}/`, prune: false, memoryLimit: 512 };
    const assets = new BucketDeployment(this, 'DeployAssets', {
      ...deployment,
      sources: [Source.asset(DASHBOARD_DIST, { exclude: ['index.html', '.inputs-hash'] })],
      cacheControl: [CacheControl.setPublic(), CacheControl.maxAge(Duration.days(365)), CacheControl.immutable()],
    });
    const page = new BucketDeployment(this, 'DeployPage', {
      ...deployment,
      sources: [Source.asset(DASHBOARD_DIST, { exclude: ['assets', '.inputs-hash'] })],
      cacheControl: [CacheControl.noCache()],
      distribution: this.distribution,
      distributionPaths: [`${DASHBOARD_PATH}/index.html`],
    });
    // The page names the assets: they are in place before it is.
    page.node.addDependency(assets);

    this.url = `https://${this.distribution.distributionDomainName}${DASHBOARD_PATH}/`;
    acknowledgeDashboardFindings(this);
  }
}

/** Findings that describe choices, not gaps; each reason says what stands in for the control. */
function acknowledgeDashboardFindings(dashboard: Dashboard): void {
  const validations = Validations.of(dashboard);
  validations.acknowledge({
    id: 'AwsSolutions-S1',
    reason: 'The log bucket receives the site bucket’s access logs and CloudFront’s; logging it into itself would loop, and a third bucket would only move the finding.',
  });
  validations.acknowledge({
    id: 'AwsSolutions-CFR1',
    reason: 'Merchants sign in from anywhere; the app holds no data itself and every /v1 call is authorised by the merchant’s API key (and its IP allowlist).',
  });
  validations.acknowledge({
    id: 'AwsSolutions-CFR2',
    reason:
      'Static files behind origin access control, and an API whose functions authenticate every request and rate-limit per merchant; a WAF web ACL (a us-east-1 resource) is left to the operator, as for the REST API (AwsSolutions-APIG3).',
  });
  validations.acknowledge({
    id: 'AwsSolutions-CFR4',
    reason: 'The default *.cloudfront.net certificate cannot be given a minimum protocol; CloudFront negotiates TLS 1.2 or newer with current browsers. A custom domain with its own certificate can set TLSv1.2_2021.',
  });
  // The deployments' handler is one function per stack, created by CDK beside the dashboard.
  const stack = Stack.of(dashboard);
  const handlers = stack.node.children.filter((child) => child.node.id.startsWith('Custom::CDKBucketDeployment')).map((child) => Validations.of(child));
  const site = `<${stack.getLogicalId(dashboard.bucket.node.defaultChild as CfnBucket)}.Arn>/*`;
  const assets = `arn:<AWS::Partition>:s3:::cdk-${DefaultStackSynthesizer.DEFAULT_QUALIFIER}-assets-<AWS::AccountId>-<AWS::Region>/*`;
  const findings: [string, string][] = [
    ['AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]', 'CDK’s bucket-deployment handler writes its own logs with the basic execution role; it runs only while a deployment copies the built app.'],
    ...['s3:GetBucket*', 's3:GetObject*', 's3:List*', 's3:Abort*', 's3:DeleteObject*'].map(
      (action): [string, string] => [`AwsSolutions-IAM5[Action::${action}]`, 'CDK’s bucket-deployment grant: read the asset bucket, write the site bucket; the actions are scoped to those two buckets.'],
    ),
    [`AwsSolutions-IAM5[Resource::${site}]`, 'The handler writes the app’s files, whose names are content hashes made at build time, under the site bucket only.'],
    [`AwsSolutions-IAM5[Resource::${assets}]`, 'The handler reads the uploaded app from the bootstrap asset bucket, whose object keys are made at deployment time.'],
    ['AwsSolutions-IAM5[Resource::*]', 'cloudfront:CreateInvalidation (index.html after a deployment) supports no narrower resource in CDK’s grant.'],
    ['AwsSolutions-L1', 'The bucket-deployment handler’s runtime is chosen by aws-cdk-lib and moves with it; it runs only during deployments.'],
  ];
  for (const scope of handlers) for (const [id, reason] of findings) scope.acknowledge({ id, reason });
}
