import { DomainName, EndpointType, SecurityPolicy } from 'aws-cdk-lib/aws-apigateway';
import type { ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import { ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayDomain } from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';
import type { RouteApi } from './route-api.ts';

export interface CustomDomainProps {
  /** The API answering on the name; its paths (/v1/..., /webhooks/..., /api/...) stay as they are. */
  api: RouteApi;
  /** e.g. api.example.com. */
  domainName: string;
  /** An ACM certificate in the stack's own region (a regional endpoint) covering the name. */
  certificate: ICertificate;
  /** A Route 53 public zone holding the name: the alias record is created there. Absent, DNS is left to the operator. */
  hostedZoneId?: string;
}

/**
 * A name of the operator's own for one API: a regional custom domain (TLS 1.2 at least) whose empty
 * base path maps to the API's stage, so `https://<name>/v1/...` reaches the same methods as the
 * execute-api URL, which keeps working. With a hosted zone, an alias A record points the name at it.
 */
export class CustomDomain extends Construct {
  readonly domain: DomainName;

  constructor(scope: Construct, id: string, props: CustomDomainProps) {
    super(scope, id);
    this.domain = new DomainName(this, 'Domain', {
      domainName: props.domainName,
      certificate: props.certificate,
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    // The stage's paths already start with their version (/v1), so the whole name maps to the stage.
    this.domain.addBasePathMapping(props.api.api, { stage: props.api.api.deploymentStage });

    if (props.hostedZoneId !== undefined) {
      new ARecord(this, 'Alias', {
        zone: HostedZone.fromHostedZoneId(this, 'Zone', props.hostedZoneId),
        // Fully qualified (trailing dot), so the zone's name need not be known here.
        recordName: `${props.domainName}.`,
        target: RecordTarget.fromAlias(new ApiGatewayDomain(this.domain)),
      });
    }
  }
}
