import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { RecoveryStack } from '../../lib/recovery-stack.ts';
import { readStackConfig } from '../../lib/stack-config.ts';

export type Resource = { Type: string; Properties: Record<string, any>; DependsOn?: string | string[] };
export type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: Record<string, any> };

export const list = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** An app as `cdk synth` builds it: cdk.json's context and feature flags, minus esbuild (no bundling). */
export function testApp(extraContext: Record<string, unknown> = {}): App {
  const { context } = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8'));
  return new App({ context: { ...context, 'aws:cdk:bundling-stacks': [], ...extraContext } });
}

/** The whole stack, as deployed. */
export function synthesize(extraContext: Record<string, unknown> = {}) {
  const app = testApp(extraContext);
  const stack = new RecoveryStack(app, 'Test', { config: readStackConfig(app.node) });
  return { app, stack, template: Template.fromStack(stack) };
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
