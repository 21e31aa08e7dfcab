import { optionalEnv, requireEnv } from './config.ts';
import type { CampaignChannel } from './model/campaign.ts';
import type { SkipReason } from './model/enrollment.ts';
import type { DeclineCategory, RecoveryChannel } from './model/payment.ts';
import type { Tenant } from './model/tenant.ts';
import { emfLine, type MetricSet } from './emf.ts';
import { currentLogContext, logLevelEnabled } from './log.ts';
import type { RetryOutcome } from './ports/payment-processor.ts';
import type { JobKind } from './ports/scheduler.ts';

/**
 * The service's own CloudWatch metrics, written as Embedded Metric Format lines to stdout, from
 * which CloudWatch Logs extracts them (docs/decisions.md, "Observability"). Dimensions take values
 * from small fixed sets only (outcome, processor family, channel, category, environment, currency):
 * merchant and payment ids travel as properties of the line, with the log context (request_id,
 * route), so a metric can be traced back to its request without becoming a metric per merchant.
 */
export type MetricSink = (line: string) => void;

const local = process.env.RUNTIME_MODE === 'local';
/** CDK sets it on every function to the stack's name, so stages never mix; a function without it fails at cold start. */
const namespace = local ? (optionalEnv('METRICS_NAMESPACE') ?? 'PaymentRecovery-local') : requireEnv('METRICS_NAMESPACE');

/**
 * Straight to stdout, not through console.log: Lambda's console prefixes each line with a timestamp
 * and request id in its text log format, and CloudWatch extracts metrics only from a bare JSON object.
 */
const stdout: MetricSink = (line) => {
  process.stdout.write(`${line}\n`);
};

/** In AWS always (alarms depend on them, whatever LOG_LEVEL says); locally only with LOG_LEVEL=debug, to keep `npm start` readable. */
let sink: MetricSink | undefined = !local || logLevelEnabled('debug') ? stdout : undefined;

/** Sends metric lines elsewhere (tests collect them); returns the sink it replaced, to put back. */
export function useMetricSink(next: MetricSink | undefined): MetricSink | undefined {
  const previous = sink;
  sink = next;
  return previous;
}

function emit(sets: MetricSet[], at: Date, properties: Record<string, unknown> = {}): void {
  if (!sink) return;
  sink(emfLine({ namespace, timestamp: at.getTime(), sets, properties: { ...currentLogContext(), ...properties } }));
}

const count = { value: 1, unit: 'Count' } as const;

/** Processors we charge through have their own value; generic connections are named by the merchant, so they share one. */
function processorFamily(psp: string): 'stripe' | 'braintree' | 'other' {
  return psp === 'stripe' || psp === 'braintree' ? psp : 'other';
}

/** What one attempt at the processor came to: paid, declined, no verdict (timeout, outage), refused until someone acts, or nothing left to collect. */
const ATTEMPT_OUTCOMES: Readonly<Record<RetryOutcome['outcome'], string>> = {
  succeeded: 'succeeded',
  declined: 'failed',
  no_answer: 'no_answer',
  refused: 'refused',
  closed: 'closed',
};

/** What a retry job reports (domain/retries/retry-execution.ts, AttemptReport), as far as the metric reads it. */
interface AttemptFacts {
  outcome: string;
  payment_id: string;
  psp?: string;
  status?: string;
}

export const metrics = {
  /** A retry attempt whose answer was recorded; a job that found nothing to do (stale, over the plan's limit) is no attempt. */
  retryAttempted(tenant: Tenant, report: AttemptFacts, at: Date): void {
    const outcome = (ATTEMPT_OUTCOMES as Partial<Record<string, string>>)[report.outcome];
    if (report.psp === undefined || outcome === undefined) return;
    const dimensions = { Environment: tenant.environment, Processor: processorFamily(report.psp), Outcome: outcome };
    emit([{ dimensions, values: { RetryAttempted: count } }], at, { payment_id: report.payment_id });
  },

  /** How late a scheduled job started after its scheduled time: the age of the scheduler's backlog. */
  jobLag(kind: JobKind, seconds: number, at: Date): void {
    emit([{ dimensions: { JobKind: kind }, values: { JobLag: { value: Math.max(0, seconds), unit: 'Seconds' } } }], at);
  },

  /**
   * A payment came back, by channel. Amounts are in the currency's smallest unit, so they only add
   * up within one currency: RecoveredAmount is dimensioned by currency, the count is not.
   */
  paymentRecovered(tenant: Tenant, payment: { id: string; channel: RecoveryChannel; currency: string; amount: number }, at: Date): void {
    emit(
      [
        { dimensions: { Environment: tenant.environment, Channel: payment.channel }, values: { PaymentRecovered: count } },
        { dimensions: { Environment: tenant.environment, Currency: payment.currency }, values: { RecoveredAmount: { value: payment.amount, unit: 'None' } } },
      ],
      at,
      { payment_id: payment.id },
    );
  },

  /** A new failed payment was recorded, by how its decline was classified. */
  failureIngested(tenant: Tenant, payment: { id: string; category: DeclineCategory }, at: Date): void {
    emit([{ dimensions: { Environment: tenant.environment, Category: payment.category }, values: { FailureIngested: count } }], at, { payment_id: payment.id });
  },

  /**
   * A dunning step that was not sent and never will be (no address, no sender deployed, refused by
   * the provider for good), by reason. Reason alone is its own set too: `sender_rejected` means this
   * deployment's sender is refused for every merchant, which is alarmed (lib/alarms.ts).
   */
  dunningStepSkipped(tenant: Tenant, step: { channel: CampaignChannel; reason: SkipReason; reference: string }, at: Date): void {
    const values = { DunningStepSkipped: count };
    emit(
      [
        { dimensions: { Environment: tenant.environment, Channel: step.channel, Reason: step.reason }, values },
        { dimensions: { Reason: step.reason }, values },
      ],
      at,
      { step: step.reference },
    );
  },

  /**
   * An optimistic write lost to concurrent ones as often as its policy allows and gave up
   * (domain/contention.ts), by which write: a burst on one record, or writes that keep colliding.
   */
  writeContended(write: string, attempts: number, at: Date): void {
    emit([{ dimensions: { Write: write }, values: { WriteContended: count } }], at, { attempts });
  },

  /** A dunning step went out to the customer. */
  dunningMessageSent(tenant: Tenant, message: { channel: CampaignChannel; campaignId: string }, at: Date): void {
    emit([{ dimensions: { Environment: tenant.environment, Channel: message.channel }, values: { DunningMessageSent: count } }], at, { campaign_id: message.campaignId });
  },
};
