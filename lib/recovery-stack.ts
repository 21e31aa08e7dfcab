import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { JOBS } from '../shared/jobs.ts';
import { MerchantApi } from './api.ts';
import { ApiGatewayAccount } from './api-gateway-account.ts';
import { Data } from './data.ts';
import { EdgeApi } from './edge.ts';
import { Scheduling } from './scheduling.ts';
import type { StackConfig } from './stack-config.ts';

export interface RecoveryStackProps extends StackProps {
  config: StackConfig;
}

/**
 * The whole service: one table, the merchant API (REST and webhooks), the edge API, and the
 * scheduled jobs (EventBridge Scheduler and one function per job kind).
 */
export class RecoveryStack extends Stack {
  readonly data: Data;
  readonly scheduling: Scheduling;
  readonly api: MerchantApi;
  readonly edge: EdgeApi;

  constructor(scope: Construct, id: string, props: RecoveryStackProps) {
    super(scope, id, props);
    const { config } = props;
    const cloudWatchAccount = config.apiGatewayCloudWatchRole ? new ApiGatewayAccount(this, 'ApiGatewayAccount').account : undefined;

    this.data = new Data(this, 'Data');
    this.scheduling = new Scheduling(this, 'Scheduling', { data: this.data, jobs: JOBS });
    this.api = new MerchantApi(this, 'Api', { data: this.data, stageName: config.stage, cloudWatchAccount });
    this.edge = new EdgeApi(this, 'Edge', {
      data: this.data,
      stageName: config.stage,
      corsOrigins: config.corsOrigins,
      cloudWatchAccount,
    });
    // Outside services as each route declares them, like its table access.
    for (const api of [this.api, this.edge]) {
      for (const [route, fn] of api.routeFunctions) {
        if (route.services?.includes('scheduler')) this.scheduling.grantScheduling(fn);
      }
    }

    new CfnOutput(this, 'ApiUrl', { value: this.api.api.url, description: 'Merchant REST API and webhooks; paths start with /v1 and /webhooks' });
    new CfnOutput(this, 'EdgeUrl', { value: this.edge.api.url, description: 'Cancel-session API for browsers' });
    new CfnOutput(this, 'ScheduleGroup', {
      value: this.scheduling.group.scheduleGroupName,
      description: 'EventBridge Scheduler group holding pending jobs',
    });
    new CfnOutput(this, 'TableName', { value: this.data.table.tableName, description: 'The single table (TABLE_NAME for npm run ops against AWS)' });
  }
}
