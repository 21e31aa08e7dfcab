import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import { CfnAccount } from 'aws-cdk-lib/aws-apigateway';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

/**
 * API Gateway writes access and execution logs through one role per account and region, set on the
 * AWS::ApiGateway::Account singleton; until it is set, a stage with logging fails to deploy. Both APIs
 * of the stack share this one (two Account resources in one stack would fight over the setting).
 */
export class ApiGatewayAccount extends Construct {
  readonly account: CfnAccount;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const role = new Role(this, 'CloudWatchRole', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AmazonAPIGatewayPushToCloudWatchLogs')],
    });
    // Other APIs in the region may rely on the setting after this stack is gone.
    role.applyRemovalPolicy(RemovalPolicy.RETAIN);
    this.account = new CfnAccount(this, 'Account', { cloudWatchRoleArn: role.roleArn });
    this.account.applyRemovalPolicy(RemovalPolicy.RETAIN);

    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        "This role is the region-wide API Gateway logging role, shared by every REST API in the account and region, not just this stack's; AWS's managed policy is the one AWS documents and maintains for it. Lambda roles use no managed policies.",
    });
  }
}
