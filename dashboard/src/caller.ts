import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { components } from './api/schema.gen.ts';
import { OPERATION_SCOPES, type Operation } from './api/scopes.gen.ts';

export type Caller = components['schemas']['Caller'];

export const CallerContext = createContext<Caller | null>(null);

export function useCaller(): Caller {
  const caller = useContext(CallerContext);
  if (!caller) throw new Error('useCaller outside a signed-in view');
  return caller;
}

/** Whether the key may call an operation, and why not: the API's own scope table (OpenAPI security), its rule that admin implies every scope and write implies read, and the trial gate on writes. */
export interface Permission {
  allowed: boolean;
  reason: string | null;
}

export function permission(caller: Caller, operation: Operation, now = new Date()): Permission {
  const required = OPERATION_SCOPES[operation] as readonly string[] | 'any';
  const granted: readonly string[] = caller.scopes;
  const admitted = required === 'any' || granted.includes('admin') || required.some((scope) => granted.includes(scope) || (scope === 'read' && granted.includes('write')));
  if (!admitted) {
    const needs = required.map((scope) => `“${scope}”`).join(' or ');
    return { allowed: false, reason: `Your API key lacks the ${needs} scope this needs (it has ${granted.join(', ') || 'none'}).` };
  }
  const trialEnded = caller.trial_ends_at && !operation.startsWith('GET ') && Date.parse(caller.trial_ends_at) <= now.getTime();
  if (trialEnded) return { allowed: false, reason: 'The trial has ended: upgrade the plan to make changes.' };
  return { allowed: true, reason: null };
}

export function usePermission(operation: Operation): Permission {
  return permission(useCaller(), operation);
}
