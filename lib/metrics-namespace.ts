import { Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** The deployed stack a construct belongs to: for one in a nested stack, the parent that holds it. */
export function rootStackOf(scope: IConstruct): Stack {
  let stack = Stack.of(scope);
  while (stack.nestedStackParent) stack = stack.nestedStackParent;
  return stack;
}

/**
 * The CloudWatch namespace of the service's own metrics (shared/metrics.ts): the stack's name, e.g.
 * `PaymentRecovery-prod`, so two stages in one account never add up. The functions get it as
 * METRICS_NAMESPACE; the alarms on those metrics read the same.
 */
export function metricsNamespace(scope: IConstruct): string {
  return rootStackOf(scope).stackName;
}
