import { describe, expect, inject, it } from 'vitest';
import { compareOutcome, runChaos, type ChaosReport } from '../support/chaos.ts';

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

function expectSameOutcome(faulted: ChaosReport, clean: ChaosReport): void {
  // One comparison for this test and the bench (docs/faults.md, "What the comparison allows").
  for (const [check, differences] of Object.entries(compareOutcome(faulted, clean))) {
    expect(differences, `at ${faulted.rate * 100}%: ${check}`).toEqual({ duplicates: [], lost: [] });
  }
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
