import { Annotations, CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { Construct } from 'constructs';
import { JOBS, RECURRING_JOBS } from '../shared/jobs.ts';
import { Alarms } from './alarms.ts';
import { MerchantApi } from './api.ts';
import { CredentialsKey } from './credentials-key.ts';
import { CustomDomain } from './custom-domain.ts';
import { Dashboard } from './dashboard.ts';
import { ApiGatewayAccount } from './api-gateway-account.ts';
import { Data } from './data.ts';
import { EdgeApi } from './edge.ts';
import { EventStream } from './event-stream.ts';
import { FunctionStacks } from './function-stacks.ts';
import { Messaging } from './messaging.ts';
import { Queues } from './queues.ts';
import type { RouteApi } from './route-api.ts';
import { RouteFunction } from './route-function.ts';
import { Scheduling } from './scheduling.ts';
import type { CustomDomainConfig, StackConfig } from './stack-config.ts';
import { WORKERS, Workers } from './workers.ts';

export interface RecoveryStackProps extends StackProps {
  config: StackConfig;
}

/** How long the event stream may fall behind before someone is told: well inside MAX_RECORD_AGE. */
const EVENT_STREAM_MAX_AGE = Duration.minutes(15);
/** How late a retry or a dunning step may start (the retry backlog's age) before someone is told. */
const RECOVERY_JOB_MAX_LAG = Duration.minutes(15);
/** The jobs of the recovery pipeline, whose lateness is watched: a late retry or reminder is revenue waiting. */
const RECOVERY_JOBS = ['payment-retry', 'campaign-step'] as const;

/**
 * The whole service: one table, the merchant API (REST and webhooks), the edge API, the scheduled
 * jobs (EventBridge Scheduler and one function per job kind), the event log's consumers on the
 * table's stream, the SQS workers (lib/workers.ts) and the queues, and the alarms watching all of
 * them. The functions (and their alarms) live in nested stacks by area (lib/function-stacks.ts), as
 * CloudFormation allows 500 resources per stack; everything else stays here.
 */
export class RecoveryStack extends Stack {
  readonly data: Data;
  readonly scheduling: Scheduling;
  readonly api: MerchantApi;
  readonly dashboard: Dashboard;
  readonly edge: EdgeApi;
  readonly alarms: Alarms;
  readonly queues: Queues;
  readonly events: EventStream;
  /** SQS work queues and their consumer functions (WORKERS in lib/workers.ts). */
  readonly workers: Workers;
  /** The nested stacks holding the functions, one per area (see FUNCTION_AREAS). */
  readonly functions: FunctionStacks;
  /** Seals processors' credentials in the table; only the functions that declare a use get it. */
  readonly credentialsKey: CredentialsKey;

  constructor(scope: Construct, id: string, props: RecoveryStackProps) {
    super(scope, id, props);
    const { config } = props;
    const cloudWatchAccount = config.apiGatewayCloudWatchRole ? new ApiGatewayAccount(this, 'ApiGatewayAccount').account : undefined;

    this.alarms = new Alarms(this, 'Alarms', { email: config.alarmEmail });
    this.queues = new Queues(this, 'Queues', { alarms: this.alarms });
    this.data = new Data(this, 'Data');
    this.credentialsKey = new CredentialsKey(this, 'CredentialsKey');
    this.functions = new FunctionStacks(this, 'Functions');
    const { placement } = this.functions;
    this.scheduling = new Scheduling(this, 'Scheduling', {
      data: this.data,
      jobs: JOBS,
      recurring: RECURRING_JOBS,
      placement,
      jobsDeadLetter: this.queues.jobsDeadLetter,
      schedulesDeadLetter: this.queues.schedulesDeadLetter,
    });
    this.api = new MerchantApi(this, 'Api', { data: this.data, stageName: config.stage, cloudWatchAccount, placement, domainName: config.customDomain?.domainName });
    this.edge = new EdgeApi(this, 'Edge', {
      data: this.data,
      stageName: config.stage,
      corsOrigins: config.corsOrigins,
      cloudWatchAccount,
      placement,
      domainName: config.customDomain?.edgeDomainName,
    });
    // Every dunning message carries a personal link to the edge API's card-update page.
    const steps = this.scheduling.jobFunctions.get('campaign-step');
    if (!steps) throw new Error('No job function for campaign-step: shared/jobs.ts must list it');
    steps.function.addEnvironment('EDGE_URL', this.edge.publicUrl);
    this.workers = new Workers(this, 'Workers', { data: this.data, queues: this.queues, workers: WORKERS, placement });
    // The dunning channels, for the jobs (shared/jobs.ts) and routes that declare they send messages.
    const messaging = new Messaging({ email: config.email, sms: config.sms });
    // Outside services as each route declares them, like its table access.
    for (const api of [this.api, this.edge]) {
      for (const [route, fn] of api.routeFunctions) {
        for (const service of route.services ?? []) {
          if (service === 'scheduler') this.scheduling.grantScheduling(fn);
          else if (service === 'messaging') messaging.grantSending(fn);
          else this.workers.grantProducer(service, fn);
        }
        if (route.credentials) this.credentialsKey.grant(route.credentials, fn);
      }
    }
    // Processors' credentials, for the jobs that call processors (shared/jobs.ts).
    for (const job of JOBS) {
      const fn = this.scheduling.jobFunctions.get(job.kind);
      if (job.credentials && fn) this.credentialsKey.grant(job.credentials, fn);
    }
    // Deployable without a channel (a stage that only retries), but said on every synth and deploy:
    // otherwise a first deployment sends no dunning message at all, and nothing tells the operator.
    if (!config.email) {
      Annotations.of(this).addWarningV2(
        'recovery:no-email-channel',
        "No 'mailFrom' in the CDK context: dunning campaigns send no email, each email step is recorded as channel_unavailable (README.md, \"First deployment\").",
      );
    }
    if (!config.sms) {
      Annotations.of(this).addWarningV2(
        'recovery:no-sms-channel',
        "No 'smsOriginationIdentity' in the CDK context: dunning campaigns send no sms, each sms step is recorded as channel_unavailable (README.md, \"First deployment\").",
      );
    }
    for (const job of JOBS.filter((definition) => definition.services?.includes('messaging'))) {
      const fn = this.scheduling.jobFunctions.get(job.kind);
      if (!fn) throw new Error(`No job function for ${job.kind}`);
      messaging.grantSending(fn);
      this.alarms.watchRefusedSender(fn);
    }
    this.events = new EventStream(this, 'Events', { data: this.data, deadLetter: this.queues.eventsDeadLetter, placement });
    // Consumers schedule campaign steps, and apply an accepted cancel-flow offer at Stripe with the
    // merchant's key (shared/events/offer-application.ts).
    this.scheduling.grantScheduling(this.events.consumer);
    this.credentialsKey.grant('open', this.events.consumer);

    // Every function, found rather than listed, so a new one cannot be left unwatched.
    this.alarms.watchFunctions(this.node.findAll().filter((node): node is RouteFunction => node instanceof RouteFunction));
    this.alarms.watchStreamAge(this.events.consumer, EVENT_STREAM_MAX_AGE);
    for (const kind of RECOVERY_JOBS) {
      const fn = this.scheduling.jobFunctions.get(kind);
      if (!fn) throw new Error(`No job function for ${kind}: shared/jobs.ts must list it`);
      this.alarms.watchJobLag(fn, kind, RECOVERY_JOB_MAX_LAG);
    }
    this.alarms.watchDroppedJobs(this.scheduling, this.scheduling.group);
    for (const api of [this.api, this.edge]) this.alarms.watchApi(api);

    if (config.customDomain) this.addCustomDomains(config.customDomain);
    this.dashboard = new Dashboard(this, 'Dashboard', { api: this.api.api });

    new CfnOutput(this, 'ApiUrl', { value: this.api.api.url, description: 'Merchant REST API and webhooks; paths start with /v1 and /webhooks' });
    new CfnOutput(this, 'DashboardUrl', { value: this.dashboard.url, description: 'Merchant dashboard; the same host serves /v1 (sign in with an API key)' });
    new CfnOutput(this, 'EdgeUrl', { value: this.edge.api.url, description: 'Cancel-session API for browsers' });
    new CfnOutput(this, 'ScheduleGroup', {
      value: this.scheduling.group.scheduleGroupName,
      description: 'EventBridge Scheduler group holding pending jobs',
    });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn, description: 'SNS topic every alarm notifies; subscribe more endpoints here' });
    new CfnOutput(this, 'CredentialsKeyArn', {
      value: this.credentialsKey.key.keyArn,
      description: 'KMS key sealing processor credentials (CREDENTIALS_KEY_ID for npm run ops -- processors encrypt-secrets against AWS)',
    });
    new CfnOutput(this, 'TableName', { value: this.data.table.tableName, description: 'The single table (TABLE_NAME for npm run ops against AWS)' });
  }

  /** The operator's names for the APIs (context domainName, edgeDomainName, certificateArn, hostedZoneId). */
  private addCustomDomains(config: CustomDomainConfig): void {
    const certificate = Certificate.fromCertificateArn(this, 'Certificate', config.certificateArn);
    const names: [string, RouteApi, string | undefined][] = [
      ['Api', this.api, config.domainName],
      ['Edge', this.edge, config.edgeDomainName],
    ];
    for (const [prefix, api, domainName] of names) {
      if (domainName === undefined) continue;
      const custom = new CustomDomain(this, `${prefix}Domain`, { api, domainName, certificate, hostedZoneId: config.hostedZoneId });
      new CfnOutput(this, `${prefix}CustomUrl`, { value: `https://${domainName}`, description: `${api.api.restApiName} on its custom domain` });
      new CfnOutput(this, `${prefix}DomainTarget`, {
        value: custom.domain.domainNameAliasDomainName,
        description: `Where ${domainName} points (alias, or CNAME in DNS outside Route 53)`,
      });
    }
  }
}
