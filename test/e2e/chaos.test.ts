import { describe, expect, inject, it } from 'vitest';
import { allowedDunningDifference, analyticsBesideSiblings, countDifferences, eventsByTurn, runChaos, type ChaosReport } from '../support/chaos.ts';

/**
 * The data path under faults (docs/faults.md): the same seeded workload through the local server
 * fault-free, then with DynamoDB throttling, failing, answering late and losing answers, and the
 * scheduler, email, sms and completion queue failing, at a share of calls. Whatever was refused is
 * sent again, as processors, Scheduler, Lambda and the stream do, and what failed every try is
 * redriven once the faults stop; in the end the table and the outbox must hold what the fault-free
 * run stored: nothing lost, nothing twice. Small here and at 5 %, beside the fault-free run;
 * `npm run test:chaos` adds 20 % and 50 %, and `npm run bench -- chaos` runs them larger
 * (docs/decisions.md, "Chaos rates in npm test"). CHAOS_FAILURES and CHAOS_RATES change the size and
 * the rates.
 */
const SEED = 2711;
const FAILURES = Number(process.env.CHAOS_FAILURES ?? 9);
const RATES = (process.env.CHAOS_RATES ?? '0.05').split(',').map(Number);

/** Each customer's failures with a sequence, whatever their due order. */
const sequenceSets = (report: ChaosReport) => Object.fromEntries(Object.entries(report.snapshot.sequences).map(([customer, payments]) => [customer, [...payments].sort()]));

function expectSameOutcome(faulted: ChaosReport, clean: ChaosReport): void {
  const at = (what: string) => `at ${faulted.rate * 100}%: ${what}`;
  // A customer's dunning is compared by the turns of their sequences, and where a step of theirs
  // waited in the dead letters for the redrive, days late, they may have had more messages (docs/faults.md, "Sibling sequences").
  const allowed = allowedDunningDifference(faulted);
  const beyondAllowed = ({ duplicates, lost }: ReturnType<typeof countDifferences>) => ({ duplicates: duplicates.filter((key) => !allowed(key.replace(/ ×\d+$/, ''))), lost });
  expect(faulted.acknowledged, at('processor events acknowledged')).toBe(faulted.events);
  expect(beyondAllowed(countDifferences(eventsByTurn(faulted.snapshot), eventsByTurn(clean.snapshot))), at('stored events')).toEqual({ duplicates: [], lost: [] });
  expect(beyondAllowed(countDifferences(faulted.snapshot.messages, clean.snapshot.messages)), at('emails and sms in the outbox')).toEqual({ duplicates: [], lost: [] });
  expect(faulted.snapshot.customers, at('customers')).toEqual(clean.snapshot.customers);
  expect(faulted.snapshot.payments, at('payments')).toEqual(clean.snapshot.payments);
  expect(faulted.snapshot.recoveryAttempts, at('attempts counted against the plan')).toBe(clean.snapshot.recoveryAttempts);
  expect(analyticsBesideSiblings(faulted.snapshot), at('analytics')).toEqual(analyticsBesideSiblings(clean.snapshot));
  expect(sequenceSets(faulted), at("customers' failure sequences")).toEqual(sequenceSets(clean));
  expect(faulted.snapshot.campaign, at('campaign stats')).toEqual(clean.snapshot.campaign);
  expect(faulted.snapshot.cancelFeedback, at('cancel feedback')).toEqual(clean.snapshot.cancelFeedback);
  expect(countDifferences(faulted.snapshot.webhookEvents, clean.snapshot.webhookEvents), at('outbound events the receiver took')).toEqual({ duplicates: [], lost: [] });
  expect(faulted.unexplainedWebhookRepeats, at('an outbound event delivered twice, not after a failed run of its delivery')).toEqual([]);
  expect(faulted.snapshot.deadJobs, at('jobs that failed every try, after the redrive')).toBe(0);
}

describe('faults survived', { timeout: 900_000 }, () => {
  it(`stores what a fault-free run stores, at ${RATES.map((rate) => `${rate * 100}%`).join(', ')} faults`, async () => {
    const engine = inject('dynamodbEndpoint');
    // The fault-free run and the rates side by side: each has its own server, table and proxy, and a
    // faulted run spends most of its time waiting (the client's deadline past a held request, the SDK's
    // backoff), not computing.
    const [clean, ...runs] = await Promise.all([0, ...RATES].map((rate) => runChaos({ engine, seed: SEED, rate, failures: FAILURES })));
    expect(clean!.acknowledged).toBe(clean!.events);
    expect(clean!.snapshot.webhookRepeats, 'an outbound event delivered twice without faults').toBe(0);
    // The workload reaches the paths: retries that recover and that run out, dunning messages, an erasure, outbound deliveries.
    const stored = Object.keys(clean!.snapshot.events);
    for (const type of ['payment.recovered', 'payment.retry_failed', 'campaign.enrolled', 'campaign.message_sent', 'customer.deleted', 'CancelFlowSaved', 'CancelFlowCompleted']) {
      expect(stored.some((key) => key.startsWith(type)), type).toBe(true);
    }
    expect(Object.keys(clean!.snapshot.webhookEvents).length, 'outbound deliveries').toBeGreaterThan(0);
    for (const [index, rate] of RATES.entries()) {
      const faulted = runs[index]!;
      expectSameOutcome(faulted, clean!);
      const injected = Object.values(faulted.faults.dynamodb).reduce((sum, { requests, ...faults }) => sum + Object.values(faults).reduce((a, b) => a + b, 0), 0);
      expect(injected, `DynamoDB faults at ${rate}`).toBeGreaterThan(0);
      expect(Object.keys(faulted.faults.ports).length, `port faults at ${rate}`).toBeGreaterThan(0);
    }
  });
});
