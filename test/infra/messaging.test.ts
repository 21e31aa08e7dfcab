import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { Messaging } from '../../lib/messaging.ts';
import { readStackConfig } from '../../lib/stack-config.ts';
import { JOBS } from '../../shared/jobs.ts';
import { ROUTES } from '../../shared/routes.ts';
import { bundledInputs } from '../support/handler-bundles.ts';
import { list, synthesize, type Resource, type Statement } from './template.ts';

/** Every messaging parameter, the SES identity a parent domain of the sender's and the sms sent from a pool by id. */
const CONTEXT = {
  mailFrom: 'Acme Billing <billing@mail.example.com>',
  mailIdentity: 'example.com',
  mailConfigurationSet: 'recovery-mail',
  smsOriginationIdentity: 'pool-0123456789abcdef0123456789abcdef',
  smsConfigurationSet: 'recovery-sms',
};
const CHANNEL_VARIABLES = ['MAIL_FROM', 'MAIL_CONFIGURATION_SET', 'SMS_ORIGINATION_IDENTITY', 'SMS_CONFIGURATION_SET'];

/** `arn:<partition>:<service>:<region>:<account>:<resource>` as formed in the function's own (nested) stack. */
const localArn = (service: string, resource: string) => ({
  'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:${service}:`, { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:${resource}`]],
});

/** `arn:<partition>:<rest>`, as formed in a stack of a known account and region. */
const partitionArn = (rest: string) => ({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:${rest}`]] });

/** Statements with their resources in a fixed order (CDK orders a statement's resources its own way). */
const normalized = (statements: Statement[]) =>
  statements.map((statement) => ({ ...statement, Resource: list(statement.Resource).map((resource) => JSON.stringify(resource)).sort() }));
const statement = (action: string, ...resources: unknown[]) => ({ Effect: 'Allow', Action: action, Resource: resources.map((resource) => JSON.stringify(resource)).sort() });

/** What one synthesized service tells about messaging: per function (by handler), its channel variables and ses/sms statements. */
function messagingOf(built: ReturnType<typeof synthesize>) {
  const resources: Record<string, Resource> = built.template.toJSON().Resources;
  const functions = Object.values(resources).filter((resource) => resource.Type === 'AWS::Lambda::Function');
  const policies = Object.values(resources).filter((resource) => resource.Type === 'AWS::IAM::Policy');
  return functions.map((fn) => {
    const handler: string = fn.Properties.Tags.find((tag: { Key: string }) => tag.Key === 'handler').Value;
    const roleId: string = fn.Properties.Role['Fn::GetAtt'][0];
    const statements = policies
      .filter((policy) => policy.Properties.Roles.some((role: { Ref: string }) => role.Ref === roleId))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
    const variables: Record<string, unknown> = fn.Properties.Environment?.Variables ?? {};
    return {
      handler,
      channelVariables: Object.fromEntries(Object.entries(variables).filter(([name]) => CHANNEL_VARIABLES.includes(name))),
      messagingStatements: statements.filter((statement) => list(statement.Action).some((action) => /^(ses|sms-voice):/.test(action))),
    };
  });
}

/** The handlers whose bundle contains the messaging adapter: the functions that send. */
async function handlersBundlingMessaging(handlers: string[]): Promise<string[]> {
  const bundles = await bundledInputs(handlers);
  expect(bundles.size).toBe(handlers.length);
  return [...bundles].filter(([, inputs]) => inputs.includes('shared/composition/messaging.ts')).map(([entry]) => entry.replace(/^functions\/(.*)\.ts$/, '$1'));
}

let configured: ReturnType<typeof synthesize>;
let unconfigured: ReturnType<typeof synthesize>;

beforeAll(() => {
  configured = synthesize(CONTEXT);
  unconfigured = synthesize();
});

describe('messaging channels configured by context', () => {
  it('declares messaging on exactly the functions whose code sends email or sms', async () => {
    // Prepare
    const handlers = [...new Set(messagingOf(configured).map((fn) => fn.handler))];
    // Act
    const sending = await handlersBundlingMessaging(handlers);
    // Assess
    expect(sending.sort()).toEqual(['jobs/campaign-step', 'templates/test-send']);
    const declared = [...JOBS.filter((job) => job.services?.includes('messaging')), ...ROUTES.filter((route) => route.services?.includes('messaging'))];
    expect(declared.map((definition) => definition.handler).sort()).toEqual(sending);
  }, 120_000);

  it('gives the sending functions their identities and exactly ses:SendEmail and sms-voice:SendTextMessage on them; no other function either', () => {
    // Act
    const functions = messagingOf(configured);
    // Assess
    const senders = functions.filter((fn) => fn.handler === 'jobs/campaign-step' || fn.handler === 'templates/test-send');
    const others = functions.filter((fn) => !senders.includes(fn));
    expect(senders).toHaveLength(2);
    for (const sender of senders) {
      expect(sender.channelVariables).toEqual({
        MAIL_FROM: 'Acme Billing <billing@mail.example.com>',
        MAIL_CONFIGURATION_SET: 'recovery-mail',
        SMS_ORIGINATION_IDENTITY: localArn('sms-voice', 'pool/pool-0123456789abcdef0123456789abcdef'),
        SMS_CONFIGURATION_SET: 'recovery-sms',
      });
      expect(normalized(sender.messagingStatements)).toEqual([
        statement('ses:SendEmail', localArn('ses', 'identity/example.com'), localArn('ses', 'configuration-set/recovery-mail')),
        statement('sms-voice:SendTextMessage', localArn('sms-voice', 'pool/pool-0123456789abcdef0123456789abcdef'), localArn('sms-voice', 'configuration-set/recovery-sms')),
      ]);
    }
    expect(others.length).toBeGreaterThan(50);
    expect(others.filter((fn) => Object.keys(fn.channelVariables).length > 0 || fn.messagingStatements.length > 0)).toEqual([]);
  });

  it('warns about no missing channel', () => {
    // Act
    const annotations = Annotations.fromStack(configured.stack);
    // Assess
    annotations.hasNoWarning('*', Match.stringLikeRegexp("No 'mailFrom'"));
    annotations.hasNoWarning('*', Match.stringLikeRegexp("No 'smsOriginationIdentity'"));
  });

  it('reports no unacknowledged cdk-nag findings with the channels configured', () => {
    // Act
    const report = new AwsSolutionsChecks(configured.app).validateScope(configured.stack);
    // Assess
    expect(report.violations.map((violation) => `${violation.ruleName} ${violation.violatingResources.map((resource) => resource.constructPath).join(', ')}`)).toEqual([]);
  });
});

describe('messaging channels without context', () => {
  it('synthesizes with no channel variables and no ses or sms-voice rights anywhere', () => {
    // Act
    const functions = messagingOf(unconfigured);
    // Assess
    expect(functions.map((fn) => fn.handler)).toContain('jobs/campaign-step');
    expect(functions.filter((fn) => Object.keys(fn.channelVariables).length > 0 || fn.messagingStatements.length > 0)).toEqual([]);
  });

  it('warns on every synth and deploy that no dunning email and no sms will be sent', () => {
    // Act
    const warnings = Annotations.fromStack(unconfigured.stack).findWarning('*', Match.stringLikeRegexp('dunning campaigns send no'));
    // Assess
    expect(warnings.map((warning) => warning.entry.data)).toEqual([
      expect.stringMatching(/^No 'mailFrom' in the CDK context: dunning campaigns send no email, each email step is recorded as channel_unavailable/),
      expect.stringMatching(/^No 'smsOriginationIdentity' in the CDK context: dunning campaigns send no sms, each sms step is recorded as channel_unavailable/),
    ]);
  });
});

describe('Messaging grants', () => {
  /** A bare function and role in a stack of a known account and region, and the template after granting. */
  function granted(context: Record<string, string>) {
    const app = new App({ context });
    const stack = new Stack(app, 'Grants', { env: { account: '111122223333', region: 'eu-west-1' } });
    const role = new Role(stack, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    const fn = new LambdaFunction(stack, 'Fn', { runtime: Runtime.NODEJS_22_X, handler: 'index.handler', code: Code.fromInline('export const handler = () => {}'), role });
    const config = readStackConfig(app.node);
    new Messaging({ email: config.email, sms: config.sms }).grantSending({ function: fn, role });
    const resources = Object.values(Template.fromStack(stack).toJSON().Resources as Record<string, Resource>);
    const variables = resources.find((resource) => resource.Type === 'AWS::Lambda::Function')!.Properties.Environment?.Variables ?? {};
    const statements = resources.filter((resource) => resource.Type === 'AWS::IAM::Policy').flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
    return { variables, statements };
  }

  it('sends from a sender ID by its ARN, as given, and is granted on that ARN alone', () => {
    // Prepare
    const senderId = 'arn:aws:sms-voice:eu-west-1:444455556666:sender-id/ACME/GB';
    // Act
    const { variables, statements } = granted({ smsOriginationIdentity: senderId });
    // Assess
    expect(variables).toEqual({ SMS_ORIGINATION_IDENTITY: senderId });
    expect(normalized(statements)).toEqual([statement('sms-voice:SendTextMessage', senderId)]);
  });

  it('grants email alone on the sender domain by default, and on an address identity when one is given', () => {
    // Act
    const byDomain = granted({ mailFrom: 'billing@example.com' });
    const byAddress = granted({ mailFrom: 'billing@example.com', mailIdentity: 'billing@example.com' });
    // Assess
    expect(byDomain.variables).toEqual({ MAIL_FROM: 'billing@example.com' });
    expect(normalized(byDomain.statements)).toEqual([statement('ses:SendEmail', partitionArn('ses:eu-west-1:111122223333:identity/example.com'))]);
    expect(normalized(byAddress.statements)).toEqual([statement('ses:SendEmail', partitionArn('ses:eu-west-1:111122223333:identity/billing@example.com'))]);
  });

  it('names a phone number by id in the stack\'s account and region', () => {
    // Act
    const { variables, statements } = granted({ smsOriginationIdentity: 'phone-a35b5011d15b4d938b008ca1102e9658' });
    // Assess
    const arn = partitionArn('sms-voice:eu-west-1:111122223333:phone-number/phone-a35b5011d15b4d938b008ca1102e9658');
    expect(variables).toEqual({ SMS_ORIGINATION_IDENTITY: arn });
    expect(normalized(statements)).toEqual([statement('sms-voice:SendTextMessage', arn)]);
  });
});
