import { loadavg } from 'node:os';
import { compareOutcome, plannedEvents, runChaos, type ChaosOptions, type ChaosReport } from '../test/support/chaos.ts';
import { requireEnv } from '../shared/config.ts';
import { progress } from './progress.ts';

/**
 * The chaos run of test/e2e/chaos.test.ts at a larger size (docs/faults.md): the same seed
 * fault-free, then at each fault rate, compared with it as the test compares them: duplicates and
 * lost are what `compareOutcome` finds more or less of, by check.
 */
export interface ChaosRow {
  rate: number;
  events_sent: number;
  deliveries: number;
  acknowledged: number;
  payments_stored: number;
  payments_differing: number;
  events_stored: number;
  duplicates: string[];
  lost: string[];
  redelivered: number;
  /** Why each request was sent again (`what status`), counted. */
  redelivery_reasons: Record<string, number>;
  /** Jobs, events and completions that failed every try under the faults, redriven once they stopped. */
  redriven: number;
  dynamodb_faults: number;
  port_faults: number;
  converge_seconds: number;
  /** Seconds per phase: the failure events, the days of retries and dunning, the wait for the schedule to empty. */
  phase_seconds: Record<string, number>;
  /** The machine's 1-minute load average as the run ended (the machine is shared: a loaded one waits longer). */
  load_average: number;
}

/** The chaos test's comparison (`compareOutcome`), each difference named by its check. */
function differences(run: ChaosReport, clean: ChaosReport): { duplicates: string[]; lost: string[] } {
  const checks = Object.entries(compareOutcome(run, clean));
  return {
    duplicates: checks.flatMap(([check, { duplicates }]) => duplicates.map((entry) => `${check}: ${entry}`)),
    lost: checks.flatMap(([check, { lost }]) => lost.map((entry) => `${check}: ${entry}`)),
  };
}

/** Payments stored once in both runs whose state differs (a status, a count): neither duplicated nor lost, but not converged. */
function differing(run: ChaosReport, clean: ChaosReport): number {
  const before = new Map(clean.snapshot.payments.map((payment) => [payment.psp_payment_id, JSON.stringify(payment)]));
  return run.snapshot.payments.filter((payment) => before.has(payment.psp_payment_id) && before.get(payment.psp_payment_id) !== JSON.stringify(payment)).length;
}

function row(run: ChaosReport, clean: ChaosReport): ChaosRow {
  const injected = Object.values(run.faults.dynamodb).reduce((sum, { requests, ...faults }) => sum + Object.values(faults).reduce((a, b) => a + b, 0), 0);
  return {
    rate: run.rate,
    events_sent: run.events,
    deliveries: run.deliveries,
    acknowledged: run.acknowledged,
    payments_stored: run.snapshot.payments.length,
    payments_differing: differing(run, clean),
    events_stored: Object.values(run.snapshot.events).reduce((a, b) => a + b, 0),
    ...differences(run, clean),
    redelivered: run.redelivered,
    redelivery_reasons: run.redeliveries,
    redriven: Object.values(run.redriven).reduce((a, b) => a + b, 0),
    dynamodb_faults: injected,
    port_faults: Object.values(run.faults.ports).reduce((a, b) => a + b, 0),
    converge_seconds: seconds(run.convergeMs),
    phase_seconds: Object.fromEntries(Object.entries(run.phases).map(([name, ms]) => [name, seconds(ms)])),
    load_average: Math.round(loadavg()[0]! * 10) / 10,
  };
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

/** One run, its acknowledged events counted on a progress line. */
async function measured(label: string, options: Omit<ChaosOptions, 'onAcknowledged'>): Promise<ChaosReport> {
  const step = progress.step(`${label}: events acknowledged`, plannedEvents(options.seed, options.failures));
  try {
    return await runChaos({ ...options, onAcknowledged: () => step.advance() });
  } finally {
    step.done();
  }
}

export async function benchChaos(failures: number, rates: readonly number[], seed = 2711): Promise<{ failures: number; seed: number; total_seconds: number; rows: ChaosRow[] }> {
  const engine = requireEnv('AWS_ENDPOINT_URL_DYNAMODB');
  const started = Date.now();
  const clean = await measured(`fault-free, ${failures} failures`, { engine, seed, rate: 0, failures });
  const rows = [row(clean, clean)];
  // One rate at a time: each run's time to converge is its own, not shared with another run.
  for (const rate of rates) {
    try {
      rows.push(row(await measured(`${rate * 100}% faults`, { engine, seed, rate, failures }), clean));
    } catch (error) {
      // A run whose workload could not finish (a request refused past the driver's patience) is a result too.
      rows.push({ ...row(clean, clean), rate, duplicates: [], lost: [`did not converge: ${(error as Error).message}`], redriven: 0, converge_seconds: Number.NaN });
    }
  }
  return { failures, seed, total_seconds: seconds(Date.now() - started), rows };
}
