import { readFileSync } from 'node:fs';
import { App, NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { RecoveryStack } from '../../lib/recovery-stack.ts';
import { readStackConfig } from '../../lib/stack-config.ts';

export type Resource = { Type: string; Properties: Record<string, any>; DependsOn?: string | string[]; DeletionPolicy?: string; UpdateReplacePolicy?: string };
export type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: Record<string, any> };

export const list = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** An app as `cdk synth` builds it: cdk.json's context and feature flags, minus esbuild (no bundling). */
export function testApp(extraContext: Record<string, unknown> = {}): App {
  const { context } = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8'));
  return new App({ context: { ...context, 'aws:cdk:bundling-stacks': [], ...extraContext } });
}

/** One deployed template: the parent stack's or a nested stack's. */
export interface StackTemplate {
  stack: Stack;
  template: Template;
  resources: Record<string, Resource>;
}

/** The stack and its nested stacks, parent first, each with its own template (as CloudFormation deploys them). */
export function templatesOf(root: Stack): StackTemplate[] {
  const stacks = [root, ...root.node.findAll().filter((node): node is NestedStack => NestedStack.isNestedStack(node))];
  return stacks.map((stack) => {
    const template = Template.fromStack(stack);
    return { stack, template, resources: template.toJSON().Resources ?? {} };
  });
}

/**
 * CDK's bucket-deployment handler (its function, role and policy), which lib/dashboard.ts's
 * deployments bring: a helper run by deployments, not one of the service's functions, so the
 * flattened template leaves it out of the service-wide checks; test/infra/dashboard.test.ts checks it.
 */
export const isDeploymentHelper = (logicalId: string): boolean => logicalId.startsWith('CustomCDKBucketDeployment');

/**
 * Every resource of the stack and its nested stacks in one template (less the deployment helper), with the references that
 * cross between them followed to their source: a nested stack's parameter becomes the value the
 * parent passes in, and the parent's `Fn::GetAtt [nested, Outputs.X]` becomes the nested stack's
 * output value. Assertions about what refers to what then read as if the service were one stack.
 * Cycles must be looked for per template instead (a nested stack deploys as one resource).
 */
export function flattenNested(root: Stack): Template {
  const templates = templatesOf(root);
  const json = new Map(templates.map(({ stack, template }) => [stack, template.toJSON()]));
  const nestedById = (parent: Stack, logicalId: string) =>
    templates.find(({ stack }) => stack.nestedStackParent === parent && parent.getLogicalId((stack as NestedStack).nestedStackResource!) === logicalId)?.stack;

  const follow = (stack: Stack, value: unknown): unknown => {
    if (Array.isArray(value)) return value.map((item) => follow(stack, item));
    if (typeof value !== 'object' || value === null) return value;
    const entries = Object.entries(value);
    if (entries.length === 1) {
      const [[key, inner]] = entries as [[string, any]];
      const parent = stack.nestedStackParent;
      if (key === 'Ref' && parent && typeof inner === 'string' && inner in (json.get(stack)!.Parameters ?? {})) {
        const resourceId = parent.getLogicalId((stack as NestedStack).nestedStackResource!);
        return follow(parent, json.get(parent)!.Resources[resourceId].Properties.Parameters[inner]);
      }
      if (key === 'Fn::GetAtt' && Array.isArray(inner) && String(inner[1]).startsWith('Outputs.')) {
        const nested = nestedById(stack, String(inner[0]));
        if (nested) return follow(nested, json.get(nested)!.Outputs[String(inner[1]).slice('Outputs.'.length)].Value);
      }
    }
    return Object.fromEntries(entries.map(([key, inner]) => [key, follow(stack, inner)]));
  };

  const resources: Record<string, unknown> = {};
  for (const { stack, resources: own } of templates) {
    for (const [id, resource] of Object.entries(own)) {
      if (isDeploymentHelper(id)) continue;
      if (id in resources) throw new Error(`Logical id ${id} appears in two stacks`);
      resources[id] = follow(stack, resource);
    }
  }
  return Template.fromJSON({ Resources: resources }, { skipCyclicalDependenciesCheck: true });
}

/**
 * The whole service, as deployed: `template` is the stack with its nested stacks flattened in
 * (see flattenNested), `templates` each stack's own template.
 */
export function synthesize(extraContext: Record<string, unknown> = {}) {
  const app = testApp(extraContext);
  const stack = new RecoveryStack(app, 'Test', { config: readStackConfig(app.node) });
  return { app, stack, template: flattenNested(stack), templates: templatesOf(stack) };
}

/** Logical ids a value refers to: Ref, Fn::GetAtt (both forms) and ${...} in Fn::Sub. */
function referencesIn(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) referencesIn(item, into);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'Ref' && typeof inner === 'string') into.add(inner);
    else if (key === 'Fn::GetAtt') into.add(Array.isArray(inner) ? String(inner[0]) : String(inner).split('.')[0]!);
    else if (key === 'Fn::Sub') {
      const text = Array.isArray(inner) ? inner[0] : inner;
      if (typeof text === 'string') for (const match of text.matchAll(/\$\{([^!.}][^.}]*)/g)) into.add(match[1]!);
    }
    referencesIn(inner, into);
  }
}

/**
 * A circular dependency among resources, which CloudFormation refuses at deploy time and `cdk synth`
 * does not notice within one stack; undefined when there is none.
 */
export function findDependencyCycle(resources: Record<string, Resource>): string[] | undefined {
  const edges = new Map<string, string[]>();
  for (const [id, resource] of Object.entries(resources)) {
    const referenced = new Set<string>();
    referencesIn(resource.Properties ?? {}, referenced);
    for (const dependency of list(resource.DependsOn ?? [])) referenced.add(dependency);
    edges.set(
      id,
      [...referenced].filter((other) => other in resources),
    );
  }
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'visiting') return [...path.slice(path.indexOf(id)), id];
    state.set(id, 'visiting');
    path.push(id);
    for (const next of edges.get(id) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const id of edges.keys()) {
    const cycle = visit(id);
    if (cycle) return cycle;
  }
  return undefined;
}
