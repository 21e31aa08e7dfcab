import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readStackConfig } from '../lib/stack-config.ts';
import { RecoveryStack } from '../lib/recovery-stack.ts';

/**
 * `npx cdk synth|deploy`. Parameters come from context (cdk.json, or -c stage=staging ...); cdk-nag's
 * AWS Solutions checks run as a validation plugin on every synth, so an unacknowledged finding fails it.
 */
const app = new App();
const config = readStackConfig(app.node);
new RecoveryStack(app, `PaymentRecovery-${config.stage}`, {
  config,
  description: `Failed-payment recovery service (${config.stage})`,
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
