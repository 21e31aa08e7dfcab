import * as z from '../zod.ts';
import { updateBody } from '../body-fields.ts';
import { allowedOrigins, cancelFlowName, cancelFlowSteps } from '../model/cancel-flow-steps.ts';

/**
 * Bodies of POST and PUT /v1/cancel-flows. The step and origin rules are the domain's
 * (shared/model/cancel-flow-steps.ts); a missing required field is 400 and an invalid one 422, both
 * with the dotted `param`, by the shared parse.
 */
const definitionFields = {
  name: cancelFlowName,
  steps: cancelFlowSteps,
  allowed_origins: allowedOrigins,
};

/** POST /v1/cancel-flows: name and steps required; allowed_origins optional (default none). */
export const createCancelFlowBody = z.strictObject({ ...definitionFields, allowed_origins: allowedOrigins.optional() });

/** PUT /v1/cancel-flows/{id}: the same fields, each optional; a supplied steps array replaces the steps. */
export const updateCancelFlowBody = updateBody(definitionFields);
