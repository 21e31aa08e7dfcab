import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { MerchantApi } from './api.ts';
import { ApiGatewayAccount } from './api-gateway-account.ts';
import { Data } from './data.ts';
import { EdgeApi } from './edge.ts';
import type { StackConfig } from './stack-config.ts';

export interface RecoveryStackProps extends StackProps {
  config: StackConfig;
}

/** The whole service: one table, the merchant API (REST and webhooks) and the edge API. */
export class RecoveryStack extends Stack {
  readonly data: Data;
  readonly api: MerchantApi;
  readonly edge: EdgeApi;

  constructor(scope: Construct, id: string, props: RecoveryStackProps) {
    super(scope, id, props);
    const { config } = props;
    const cloudWatchAccount = config.apiGatewayCloudWatchRole ? new ApiGatewayAccount(this, 'ApiGatewayAccount').account : undefined;

    this.data = new Data(this, 'Data');
    this.api = new MerchantApi(this, 'Api', { data: this.data, stageName: config.stage, cloudWatchAccount });
    this.edge = new EdgeApi(this, 'Edge', {
      data: this.data,
      stageName: config.stage,
      corsOrigins: config.corsOrigins,
      cloudWatchAccount,
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.api.url, description: 'Merchant REST API and webhooks; paths start with /v1 and /webhooks' });
    new CfnOutput(this, 'EdgeUrl', { value: this.edge.api.url, description: 'Cancel-session API for browsers' });
    new CfnOutput(this, 'TableName', { value: this.data.table.tableName, description: 'The single table (TABLE_NAME for npm run ops against AWS)' });
  }
}
