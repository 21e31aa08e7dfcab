import * as z from '../zod.ts';
import { requiredText, wholeNumber } from '../body-fields.ts';
import { isWebOrigin } from './web-origin.ts';

/**
 * What a cancel flow may contain: its steps, name and allowed origins, as zod schemas, with the types
 * the domain uses derived from them. Domain rules used by the API (create, update), the queued
 * completions and the API description; apart from cancel-flow.ts so the functions that only read
 * flows or run sessions do not build them at every cold start (docs/decisions.md,
 * "Bundles and cold start: import work").
 */

export const STEP_TYPES = ['survey', 'offer', 'confirm'] as const;
export const OFFER_TYPES = ['discount', 'pause', 'downgrade', 'trial_extension'] as const;

export const CANCEL_FLOW_LIMITS = {
  nameLength: 100,
  steps: 10,
  questionLength: 300,
  reasons: 20,
  subReasons: 20,
  labelLength: 200,
  headlineLength: 200,
  bodyLength: 1000,
  planIdLength: 255,
  allowedOrigins: 20,
  /**
   * The steps as JSON, whatever the counts above allow (20 reasons of 20 sub-reasons of 200 characters
   * fit in them many times over): a flow, and every cancel session's copy of its steps beside up to
   * ten 8 KB answers, must fit in one 400 KB DynamoDB item.
   */
  stepsBytes: 128 * 1024,
} as const;

/** Reason ids are what the widget sends back as `reason`: short, stable, URL- and log-safe. */
export const CHOICE_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

const oneOf = (values: readonly string[]) => ({ error: `must be one of ${values.join(', ')}` });

const choiceId = z
  .string({ error: 'must be a string' })
  .regex(CHOICE_ID_PATTERN, { error: 'must be 1-64 lowercase letters, digits, _ or -, starting with a letter or digit' });

/** A refinement naming the first repeated id, so `param` points at the duplicate itself. */
function uniqueIds(items: readonly { id: string }[], ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    if (seen.has(item.id)) ctx.addIssue({ code: 'custom', message: `repeats the id '${item.id}'`, path: [index, 'id'] });
    seen.add(item.id);
  });
}

const choice = z.strictObject({ id: choiceId, label: requiredText(CANCEL_FLOW_LIMITS.labelLength) }, { error: 'must be an object with id and label' });

const reason = z.strictObject(
  {
    id: choiceId,
    label: requiredText(CANCEL_FLOW_LIMITS.labelLength),
    sub_reasons: z
      .array(choice, { error: 'must be an array of {id, label}' })
      .min(1, { error: 'must list at least one sub-reason when present' })
      .max(CANCEL_FLOW_LIMITS.subReasons, { error: `must have at most ${CANCEL_FLOW_LIMITS.subReasons} sub-reasons` })
      .superRefine(uniqueIds)
      .optional(),
    free_text: z.boolean({ error: 'must be a boolean' }).optional(),
  },
  { error: 'must be a reason object' },
);

export const surveyConfig = z.strictObject(
  {
    question: requiredText(CANCEL_FLOW_LIMITS.questionLength),
    reasons: z
      .array(reason, { error: 'must be an array of reasons' })
      .min(1, { error: 'must list at least one reason' })
      .max(CANCEL_FLOW_LIMITS.reasons, { error: `must have at most ${CANCEL_FLOW_LIMITS.reasons} reasons` })
      .superRefine(uniqueIds),
  },
  { error: 'must be a survey configuration object' },
);

const offerText = {
  headline: requiredText(CANCEL_FLOW_LIMITS.headlineLength),
  body: requiredText(CANCEL_FLOW_LIMITS.bodyLength).optional(),
};

export const offerConfig = z.discriminatedUnion(
  'offer_type',
  [
    z.strictObject({
      offer_type: z.literal('discount'),
      ...offerText,
      percent_off: wholeNumber(1, 100, 'a whole percentage'),
      /** Absent: the discount applies to the next invoice only. */
      duration_months: wholeNumber(1, 36, 'a number of months').optional(),
    }),
    z.strictObject({ offer_type: z.literal('pause'), ...offerText, duration_months: wholeNumber(1, 12, 'a number of months') }),
    z.strictObject({
      offer_type: z.literal('downgrade'),
      ...offerText,
      /** The processor's plan or price id to move the subscription to (a Stripe price id at Stripe). */
      plan_id: requiredText(CANCEL_FLOW_LIMITS.planIdLength),
    }),
    z.strictObject({ offer_type: z.literal('trial_extension'), ...offerText, days: wholeNumber(1, 365, 'a number of days') }),
  ],
  { error: `must be an offer with offer_type one of ${OFFER_TYPES.join(', ')}` },
);

export const confirmConfig = z.strictObject(
  { headline: requiredText(CANCEL_FLOW_LIMITS.headlineLength).optional(), body: requiredText(CANCEL_FLOW_LIMITS.bodyLength).optional() },
  { error: 'must be a confirm configuration object' },
);

export const cancelFlowStep = z.discriminatedUnion(
  'step_type',
  [
    z.strictObject({ step_type: z.literal('survey'), config: surveyConfig }),
    z.strictObject({ step_type: z.literal('offer'), config: offerConfig }),
    z.strictObject({ step_type: z.literal('confirm'), config: confirmConfig.default({}) }),
  ],
  oneOf(STEP_TYPES.map((type) => `{step_type: ${type}}`)),
);

export const cancelFlowSteps = z
  .array(cancelFlowStep, { error: 'must be an array of steps' })
  .min(1, { error: 'must have at least one step' })
  .max(CANCEL_FLOW_LIMITS.steps, { error: `must have at most ${CANCEL_FLOW_LIMITS.steps} steps` })
  .refine((steps) => jsonBytes(steps) <= CANCEL_FLOW_LIMITS.stepsBytes, {
    error: (issue) => `must be at most ${CANCEL_FLOW_LIMITS.stepsBytes / 1024} KB as JSON (these are ${Math.ceil(jsonBytes(issue.input) / 1024)} KB)`,
  });

export const allowedOrigins = z
  .array(
    z
      .string({ error: 'must be a string' })
      .refine(isWebOrigin, { error: 'must be an origin like https://app.example.com (no path, no trailing slash)' })
      .meta({ description: 'A web origin as browsers send it: scheme, lowercase host, port only when not the default; no path or trailing slash (https://app.example.com)' }),
    { error: 'must be an array of origins' },
  )
  .max(CANCEL_FLOW_LIMITS.allowedOrigins, { error: `must have at most ${CANCEL_FLOW_LIMITS.allowedOrigins} origins` })
  .refine((origins) => new Set(origins).size === origins.length, { error: 'must not repeat an origin' });

export const cancelFlowName = requiredText(CANCEL_FLOW_LIMITS.nameLength);

export type SurveyConfig = z.infer<typeof surveyConfig>;
export type OfferConfig = z.infer<typeof offerConfig>;
export type ConfirmConfig = z.infer<typeof confirmConfig>;
export type CancelFlowStep = z.infer<typeof cancelFlowStep>;
export type StepType = CancelFlowStep['step_type'];
