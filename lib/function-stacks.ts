import { NestedStack } from 'aws-cdk-lib';
import { Construct } from 'constructs';

/**
 * Where a function is created, given the construct that owns it (an API, the scheduling, the event
 * stream) and its handler module. The service puts each function in its area's nested stack;
 * constructs built on their own (tests) keep their functions under themselves.
 */
export type FunctionPlacement = (owner: Construct, handler: string) => Construct;

export const underOwner: FunctionPlacement = (owner) => owner;

/**
 * Areas of the service and the handler folders (a handler module's first path segment) each holds.
 * Every function costs four resources (function, role, policy, log group), and one stack holds at
 * most 500, so functions live in one nested stack per area while the APIs, their methods and the
 * table stay in the parent. A new route in an existing folder lands in its area by itself; a new
 * folder must be given an area here, so no stack grows without someone choosing where.
 */
export const FUNCTION_AREAS: Readonly<Record<string, readonly string[]>> = {
  Access: ['auth', 'api-keys', 'processors', 'platform', 'settings'],
  Payments: ['payments', 'customers', 'analytics'],
  Campaigns: ['campaigns', 'templates'],
  CancelFlowsWebhooks: ['cancel-flows', 'cancel-feedback', 'webhook-endpoints', 'webhooks'],
  Edge: ['cancel-sessions', 'card-updates'],
  Jobs: ['jobs', 'streams', 'workers'],
};

/** 'campaigns/list' → 'Campaigns'. */
export function areaOf(handler: string): string {
  const folder = handler.split('/')[0]!;
  const area = Object.entries(FUNCTION_AREAS).find(([, folders]) => folders.includes(folder))?.[0];
  if (area === undefined) throw new Error(`Handler ${handler}: its folder '${folder}' belongs to no area; add it to FUNCTION_AREAS in lib/function-stacks.ts`);
  return area;
}

/**
 * The nested stacks holding the functions, one per area, each made when its first function is
 * placed (CloudFormation refuses a stack without resources). Functions reference the parent's
 * table, topic, queues and scheduler role (passed in as parameters); the parent's methods and
 * permissions reference the functions (passed out as outputs). Nothing in the parent that a nested
 * stack references may itself reference a function, or the two stacks would wait on each other.
 */
export class FunctionStacks extends Construct {
  private readonly areas = new Map<string, NestedStack>();

  readonly placement: FunctionPlacement = (owner, handler) => {
    const stack = this.stackFor(areaOf(handler));
    // One scope per owner inside the area, so two owners' functions of one handler (the two APIs'
    // fallbacks) stay apart, and logical ids still start with the owner and the handler.
    const id = owner.node.id;
    return stack.node.tryFindChild(id) ?? new Construct(stack, id);
  };

  /** The nested stacks made so far, by area. */
  get stacks(): ReadonlyMap<string, NestedStack> {
    return this.areas;
  }

  private stackFor(area: string): NestedStack {
    const existing = this.areas.get(area);
    if (existing) return existing;
    const stack = new NestedStack(this, area, { description: `Payment recovery: ${area} functions, their roles, log groups and alarms` });
    this.areas.set(area, stack);
    return stack;
  }
}
