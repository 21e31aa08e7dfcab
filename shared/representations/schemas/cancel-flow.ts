import * as z from '../../zod.ts';
import { confirmConfig, offerConfig, surveyConfig } from '../../model/cancel-flow-steps.ts';
import { CANCEL_FLOW_STATUSES } from '../../model/cancel-flow.ts';
import { count, prefixedId, timestamp } from './common.ts';

/** A flow's step as stored (the domain's own step schemas) with its output-only position. */
export const cancelFlowStepSchema = z
  .discriminatedUnion('step_type', [
    z.strictObject({ index: count, step_type: z.literal('survey'), config: surveyConfig }),
    z.strictObject({ index: count, step_type: z.literal('offer'), config: offerConfig }),
    z.strictObject({ index: count, step_type: z.literal('confirm'), config: confirmConfig }),
  ])
  .meta({ id: 'CancelFlowStep' });

export const cancelFlowSchema = z
  .strictObject({
    id: prefixedId('cfl'),
    name: z.string(),
    status: z.enum(CANCEL_FLOW_STATUSES),
    steps_count: count,
    steps: z.array(cancelFlowStepSchema),
    allowed_origins: z.array(z.string()),
    created_at: timestamp,
    updated_at: timestamp,
    activated_at: timestamp.nullable(),
    deactivated_at: timestamp.nullable(),
    archived_at: timestamp.nullable(),
  })
  .meta({ id: 'CancelFlow' });

export type CancelFlowResource = z.output<typeof cancelFlowSchema>;
