import * as z from '../../zod.ts';
import { type sessionView, type stepView } from '../../domain/cancel-flows/cancel-sessions.ts';
import { count, prefixedId, timestamp, type Assert, type Same } from './common.ts';
import { OUTCOMES } from '../../model/cancel-session.ts';

/** Cancel-session objects are camelCase (§2.5). */
const acceptedOffer = z.unknown().meta({ description: 'the accepted_offer of a response, any JSON value, or null' });

const responses = z.array(z.strictObject({ stepType: z.string(), responseJson: z.string(), acceptedOffer }));

/** §2.5. customerId and subscriptionId are the ids the widget sent. */
export const cancelSessionSchema = z
  .strictObject({
    sessionId: prefixedId('cfs'),
    cancelFlowId: prefixedId('cfl'),
    merchantId: prefixedId('mer'),
    customerId: z.string(),
    subscriptionId: z.string(),
    currentStep: z.int().min(1).meta({ description: 'starts at 1; steps + 1 once every step is answered' }),
    status: z.literal('in_progress'),
    responses,
    acceptedOffer,
    startedAt: timestamp,
  })
  .meta({ id: 'CancelSession' });

/** §2.5 step descriptor; configJson is the step's configuration as JSON text. */
export const sessionStepSchema = z.strictObject({ stepType: z.string(), configJson: z.string() }).meta({ id: 'CancelSessionStep' });

export const startedSessionSchema = z
  .strictObject({ token: z.uuidv4().meta({ description: 'the session credential: shown only here' }), session: cancelSessionSchema })
  .meta({ id: 'StartedCancelSession' });

export const sessionStateSchema = z
  .strictObject({ session: cancelSessionSchema, step: sessionStepSchema.nullable().meta({ description: 'null once every step is answered' }) })
  .meta({ id: 'CancelSessionState' });

export const advancedSessionSchema = z
  .strictObject({ session: cancelSessionSchema.pick({ sessionId: true, currentStep: true, status: true, responses: true }) })
  .meta({ id: 'AdvancedCancelSession' });

export const completedSessionSchema = z
  .strictObject({ completed: z.literal(true), outcome: z.enum(OUTCOMES), session_id: prefixedId('cfs') })
  .meta({ id: 'CompletedCancelSession' });

export type StartedSession = z.output<typeof startedSessionSchema>;
export type SessionState = z.output<typeof sessionStateSchema>;
export type AdvancedSession = z.output<typeof advancedSessionSchema>;
export type CompletedSession = z.output<typeof completedSessionSchema>;

export type SessionViewMatches = Assert<Same<ReturnType<typeof sessionView>, z.output<typeof cancelSessionSchema>>>;
export type StepViewMatches = Assert<Same<ReturnType<typeof stepView>, z.output<typeof sessionStepSchema> | null>>;
