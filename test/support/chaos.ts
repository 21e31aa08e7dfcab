import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import Stripe from 'stripe';
import { ensureTable } from '../../bin/local/table.ts';
import { FaultDraws, seededRandom } from '../../shared/adapters/local/port-faults.ts';
import { inLanes } from '../../bin/local/lanes.ts';
import { tenantPartitions } from '../../shared/store/keys.ts';
import { notificationXml, signedBraintreeNotification, subscriptionXml } from './braintree-signing.ts';
import { startFaultProxy, type FaultProxy } from './dynamodb-fault-proxy.ts';
import { startLocalServer, type RunningServer } from './local-server.ts';
import { stripeChargeFailure } from './stripe-events.ts';
import { genericSignature } from './webhooks.ts';

/**
 * One chaos run (docs/faults.md): the local server on a table of its own behind the fault proxy, its
 * scheduler, email, sms and completion queue failing on demand at the same rate, and a merchant's
 * workload sent at it as processors send it (every delivery that does not get a 2xx is sent again):
 * failures from the three receivers, successes, manual retries, an erasure half-way, subscribers
 * walking through the cancel widget (start, advance, complete: saved or churned), outbound
 * deliveries to a receiver that fails now and then, and the clock moved day by day so retries and
 * dunning steps fire. Then faults stop, the clock runs out the month, and the run reports what it
 * stored, normalised (ids and times dropped) so a run at a fault rate compares with a fault-free
 * run of the same seed.
 */
export interface ChaosOptions {
  /** The engine behind the proxy (the test run's DynamoDB Local). */
  engine: string;
  seed: number;
  rate: number;
  /** Failure events sent (successes come on top, for a share of them). */
  failures: number;
  /** Called as each processor event is acknowledged (a progress display). */
  onAcknowledged?: () => void;
}

export interface ChaosReport {
  rate: number;
  /** Processor events the workload sent, once each. */
  events: number;
  /** Webhook deliveries, redeliveries included. */
  deliveries: number;
  /** Events answered 2xx in the end (all of them, or the processor would still be redelivering). */
  acknowledged: number;
  /** Deliveries, API calls and job rounds answered 5xx or cut off, each sent again. */
  redelivered: number;
  /** The same, by what was sent and how it was answered. */
  redeliveries: Record<string, number>;
  /** Milliseconds per phase: setup, failures, days, converge, snapshot. */
  phases: Record<string, number>;
  convergeMs: number;
  /** Jobs, events and cancel completions that failed every try under the faults, redriven once they stopped. */
  redriven: Record<string, number>;
  faults: { dynamodb: Record<string, Record<string, number>>; ports: Record<string, number>; receiver: number };
  /**
   * Customers (processor ids, to their email and phone) a dunning step of whose went to the dead
   * letters: their sequences resume at the redrive, days late, past the spacing that made one voice
   * of their failures (`allowedDunningDifference`).
   */
  lateSequences: Record<string, string[]>;
  /**
   * Outbound events the receiver took more than once with no failed run of their delivery's job: a
   * repeat after one is at-least-once delivery (the receiver took it, recording the attempt failed,
   * Lambda ran the job again; receivers dedupe by `Recovery-Event-Id`, as with Stripe's webhooks).
   */
  unexplainedWebhookRepeats: string[];
  /**
   * Customers (processor ids, to their email and phone) a dunning step of whose went to the dead
   * letters for a payment settled (recovered) before the redrive: the redriven step finds the
   * sequence stopped and sends nothing (`allowedFewerMessages`).
   */
  settledBeforeRedrive: Record<string, string[]>;
  snapshot: ChaosSnapshot;
}

export interface ChaosSnapshot {
  customers: Record<string, unknown>[];
  payments: Record<string, unknown>[];
  /** Stored events by `type psp_payment_id` (or customer, or the cancel widget's customer id), counted. */
  events: Record<string, number>;
  recoveryAttempts: number;
  analytics: unknown;
  campaign: unknown;
  /** Cancel feedback records (GET /v1/cancel-feedback), by the widget's customer id. */
  cancelFeedback: Record<string, unknown>[];
  /** Emails and sms by recipient and subject (or text), counted. */
  messages: Record<string, number>;
  /**
   * Outbound webhook events the merchant's receiver accepted, by `type psp_payment_id` as stored events
   * are keyed (the erased customer's as ERASED_CUSTOMER), counted (distinct event ids).
   */
  webhookEvents: Record<string, number>;
  /** The same event id accepted more than once (a receiver must dedupe those, but we count them). */
  webhookRepeats: number;
  /** Jobs that failed every try (the jobs' dead-letter queue), and completions left in theirs. */
  deadJobs: number;
  /** Each customer's failures with a sequence in the campaign (processor ids), in the order their first steps came due. */
  sequences: Record<string, string[]>;
  /** What each recovered payment's `payment.recovered` credited (processor payment id → recovery_channel). */
  recoveryChannels: Record<string, string>;
  /** How each failure's sequence ended (processor payment id → `status stop_reason`, messages sent). */
  enrollments: Record<string, string>;
}

const STRIPE_SECRET = 'whsec_chaos_0123456789abcdef';
const GENERIC_SECRET = 'chaos-generic-secret-0123456789';
const BRAINTREE = { merchant_id: 'chaos_merchant', public_key: 'chaos_public', private_key: 'chaos_private' };
/** Days of analytics compared, from the day before the workload: the run and the quiet days after it. */
const ANALYTICS_DAYS = 60;
/** Days of the clock the run waits, after the faults, for the schedule to empty (retries end within two weeks). */
const QUIET_AFTER_DAYS = 30;
/** The client's DynamoDB deadline in the run, and how long the proxy holds a `slow` request: past it. */
const REQUEST_TIMEOUT_MS = 1_000;
const SLOW_MS = 1_100;
/**
 * Requests the processors and the merchant have in flight at once, and the local server's jobs and
 * stream batches side by side (LOCAL_CONCURRENCY): a faulted run spends its time waiting (deadlines,
 * backoffs), so its work overlaps, as in AWS, where every request and job has a Lambda of its own.
 */
const SENDERS = 16;
const stripe = new Stripe('sk_test_unused');

type Processor = 'stripe' | 'braintree' | 'acme';

interface PlannedFailure {
  index: number;
  processor: Processor;
  customer: number;
  /** insufficient_funds (soft) or expired_card (hard). */
  hard: boolean;
  /** The card the sandbox retries: 4242 recovers, 9995 keeps declining, 0069 declines as expired, 0341 (hard) waits for the customer. */
  last4: string;
  /** A later success event settles it (the customer paid with a new card). */
  paidLater: boolean;
  /** The merchant retries it by hand. */
  manualRetry: boolean;
}

/** Processor events a run sends, once each: the failures and the later successes. */
export function plannedEvents(seed: number, failures: number): number {
  const workload = plan(seed, failures);
  return workload.length + workload.filter((failure) => failure.paidLater).length;
}

/** The workload of a seed: the same on every run of it. */
export function plan(seed: number, failures: number): PlannedFailure[] {
  const random = seededRandom(seed);
  const customers = Math.max(3, Math.ceil(failures / 2));
  return Array.from({ length: failures }, (_, index) => {
    const processor = (['stripe', 'braintree', 'acme'] as const)[index % 3]!;
    const hard = random() < 0.4;
    const drawn = random() < 0.5 ? '4242' : '9995';
    // Every fourth failure's card declines its retry as expired: the payment is recategorized (soft to hard).
    const soft4 = index % 4 === 3 ? '0069' : drawn;
    return {
      index,
      processor,
      // A customer stays with one processor: customers are per processor.
      customer: 3 * Math.floor(random() * (customers / 3)) + (index % 3),
      hard,
      last4: hard ? '0341' : soft4,
      paidLater: processor === 'acme' && hard && random() < 0.5,
      manualRetry: hard && random() < 0.3,
    };
  });
}

const paymentRef = (seed: number, failure: PlannedFailure) => `ch_chaos_${seed}_${failure.index}`;
const customerRef = (seed: number, failure: PlannedFailure) => `cus_chaos_${seed}_${failure.customer}`;
/** The subscription a failure was for, as the processor names it (Stripe's is per invoice: test/support/stripe-events.ts). */
const subscriptionRef = (seed: number, failure: PlannedFailure) =>
  ({ stripe: `sub_schaos_${seed}_${failure.index}`, braintree: `sub_chaos_${seed}_${failure.customer}`, acme: `subx_chaos_${seed}_${failure.customer}` })[failure.processor];

export interface PlannedCancellation {
  /** The customer's first failure: which processor's ids the merchant's page hands the widget. */
  failure: PlannedFailure;
  /** saved: the subscriber takes the offer; churned: declines it and confirms. */
  outcome: 'saved' | 'churned';
}

/** Every other customer of the workload but the one erased, saving and churning in turn. */
export function cancellations(workload: readonly PlannedFailure[]): PlannedCancellation[] {
  const firstFailures = new Map<number, PlannedFailure>();
  for (const failure of workload) if (!firstFailures.has(failure.customer)) firstFailures.set(failure.customer, failure);
  const erased = workload[0]?.customer;
  return [...firstFailures.values()]
    .filter((failure) => failure.customer !== erased)
    .sort((a, b) => a.customer - b.customer)
    .filter((_, position) => position % 2 === 0)
    .map((failure, position) => ({ failure, outcome: position % 2 === 0 ? 'saved' : 'churned' }));
}

/** The merchant's cancel flow: a survey, an offer, a confirmation (the widget's three step types). */
const CANCEL_FLOW = {
  name: 'Chaos retention',
  steps: [
    { step_type: 'survey', config: { question: 'Why are you leaving?', reasons: [{ id: 'too_expensive', label: 'Too expensive' }] } },
    { step_type: 'offer', config: { offer_type: 'discount', headline: 'Half price for 3 months', percent_off: 50, duration_months: 3 } },
    { step_type: 'confirm', config: { headline: 'Cancel for good?' } },
  ],
};

/**
 * Whether an answer is sent again: processors redeliver anything but a 2xx; API clients a 5xx, a 429
 * (after its wait), and a 409 whose request is still running under its Idempotency-Key (a failed
 * try's lock not released yet: Stripe's libraries retry that 409 too).
 */
const PROCESSOR_RESENDS = (status: number) => status < 200 || status >= 300;
const CLIENT_RESENDS = (status: number, body: unknown) =>
  status >= 500 || status === 429 || (status === 409 && (body as { error?: { code?: string } } | undefined)?.error?.code === 'idempotency_key_in_use');

/** Sends until answered, as processors and careful clients do; counts the resends. */
class Resender {
  redelivered = 0;
  /** Why each resend happened: `what status`, counted. */
  readonly reasons: Record<string, number> = {};
  /** While faults are on a caller keeps trying (Stripe for three days); once they stop, a request must be answered within GIVE_UP_AFTER tries. */
  faultsOn = true;

  async until<T>(attempt: () => Promise<{ status: number; body: T }>, what: string, resends: (status: number, body: T) => boolean = CLIENT_RESENDS): Promise<{ status: number; body: T }> {
    for (let tries = 1, afterFaults = 0; ; tries++) {
      let answer: { status: number; body: T } | undefined;
      try {
        answer = await attempt();
      } catch {
        answer = undefined; // cut off: sent again, like a 5xx
      }
      if (answer && !resends(answer.status, answer.body)) return answer;
      this.redelivered += 1;
      const reason = `${what} ${answer ? `${answer.status} ${(answer.body as any)?.error?.code ?? ''}` : 'cut off'}`;
      this.reasons[reason] = (this.reasons[reason] ?? 0) + 1;
      if (!this.faultsOn && ++afterFaults >= GIVE_UP_AFTER) throw new Error(`${what}: not answered after ${tries} tries, ${afterFaults} of them fault-free (last ${answer?.status})`);
      await new Promise((resolve) => setTimeout(resolve, Math.min(this.faultsOn ? 1_000 : 500, 20 * tries)));
    }
  }
}

const GIVE_UP_AFTER = 100;

/** The merchant's outbound webhook receiver: refuses a seeded share of deliveries (drawn on the event and its try) with a 500, records the ones it takes. */
class Receiver {
  readonly accepted: { id: string; event: Record<string, any> }[] = [];
  refused = 0;
  private readonly server: Server;

  constructor(draws: FaultDraws, failShare: number) {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (draws.draw(Buffer.concat(chunks).toString('utf8'))[0] < failShare) {
          this.refused += 1;
          response.writeHead(500).end('try later');
          return;
        }
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        this.accepted.push({ id: event.id, event });
        response.writeHead(200).end('ok');
      });
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  // The local scheduler keeps its jobs in the table: EventBridge Scheduler's own storage does not fail
  // with the table, and its failures are the scheduler port's (POST /__dev/faults), so its items are spared.
  const proxy = await startFaultProxy({ target: options.engine, seed: options.seed, rate: 0, slowMs: SLOW_MS, spared: /"LOCALJOB#/ });
  const receiver = new Receiver(new FaultDraws(options.seed + 1), options.rate / 2);
  const table = `chaos-${options.seed}-${Math.round(options.rate * 100)}-${randomUUID().slice(0, 8)}`;
  let server: RunningServer | undefined;
  // The schedule read past the proxy, as the run's clock follows it (`runDue`).
  const jobs = engineClient(options.engine);
  try {
    const hooksUrl = await receiver.start();
    // Made past the proxy and without the run's short deadline: the table is the engine's to make, not the service's.
    await ensureTable(options.engine, table);
    // Test-only client tuning (shared/aws-clients.ts, docs/faults.md): a deadline the proxy's held
    // requests pass, no shared retry quota, and the throttle's backoff from the 100 ms base of other errors.
    server = await startLocalServer(
      {
        DYNAMODB_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        DYNAMODB_RETRY_QUOTA: 'off',
        DYNAMODB_THROTTLE_BACKOFF_MS: '100',
        LOCAL_CONCURRENCY: String(SENDERS),
        LOG_LEVEL: 'error',
      },
      ['--no-timer', '--dynamodb-endpoint', proxy.endpoint, '--table', table],
    );
    return await drive(server, proxy, receiver, hooksUrl, table, options, jobs);
  } finally {
    if (process.env.CHAOS_LOG_DIR && server) writeFileSync(join(process.env.CHAOS_LOG_DIR, `${table}.log`), server.output());
    await server?.stop();
    jobs.destroy();
    await receiver.stop();
    await proxy.close();
  }
}

async function drive(server: RunningServer, proxy: FaultProxy, receiver: Receiver, hooksUrl: string, table: string, options: ChaosOptions, jobs: DynamoDBDocumentClient): Promise<ChaosReport> {
  const { seed } = options;
  const resend = new Resender();
  const api = (method: string, path: string, body?: unknown, idempotencyKey?: string) =>
    resend.until(async () => {
      const response = await fetch(`${server.baseUrl}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${server.credentials.keys.test_admin}`,
          'Content-Type': 'application/json',
          ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as any };
    }, `${method} ${path}`);
  // The cancel widget in a browser: no API key, the session token in the path; a 5xx or a dropped
  // connection is sent again as it was (the service answers a resent advance or complete as the first).
  const widget = (what: string, path: string, body?: unknown) =>
    resend.until(async () => {
      const response = await fetch(`${server.baseUrl}/api/cancel-session${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as any };
    }, `cancel-session ${what}`);
  const dev = (method: string, path: string, body?: unknown) =>
    resend.until(async () => {
      const response = await fetch(`${server.baseUrl}/__dev/${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as any };
    }, `/__dev/${path}`);
  let clockOffsetMs = 0;
  const serverSeconds = () => Math.floor((Date.now() + clockOffsetMs) / 1000);
  const advance = async (seconds: number) => {
    const { body } = await dev('POST', 'clock', { advance_seconds: seconds });
    clockOffsetMs = Date.parse(body.now) - Date.now();
  };
  // Each run-due's clock and the jobs it ran, written beside the snapshot under CHAOS_LOG_DIR: what a diverging run did when.
  const jobRuns: { now: string; ran: string[] }[] = [];
  const runDueOnce = async () => {
    const { body } = await dev('POST', 'run-due');
    jobRuns.push({ now: body.now, ran: body.ran.map((run: { job_id: string; outcome: string; run_at: string }) => `${run.job_id} ${run.outcome} (due ${run.run_at})`) });
  };
  // What is due, then what AWS runs again minutes later, the clock moved to each: Lambda's retries of a
  // failed job (1 and then 2 minutes after a try) and a waiting dunning step's looks. Left to the next
  // day's run, a retry would fire a day late, and one customer's sequences would drift apart.
  const advanceTo = (at: string) => advance(Math.max(0, Math.ceil(Date.parse(at) / 1000 - serverSeconds())));
  const runDue = async () => {
    await runDueOnce();
    for (let [at] = await scheduled(jobs, table, true); at !== undefined; [at] = await scheduled(jobs, table, true)) {
      await advanceTo(at);
      await runDueOnce();
    }
  };
  // A day of the clock, stopping at each job's time on the way, as Scheduler fires each at its time:
  // run side by side a day late, a Lambda retry of the earlier of two jobs due hours apart would let the
  // later one overtake it (a dunning step before the manual retry that recovers its payment).
  const passDay = async () => {
    const end = new Date((serverSeconds() + 24 * 3600) * 1000).toISOString();
    for (let [at] = await scheduled(jobs, table); at !== undefined && at <= end; [at] = await scheduled(jobs, table)) {
      await advanceTo(at);
      await runDue();
    }
    await advanceTo(end);
    await runDue();
  };

  // The merchant's setup, fault-free: three processors, a dunning campaign, a webhook endpoint.
  const urls: Record<Processor, string> = {
    stripe: (await api('PUT', '/v1/processors/stripe', { webhook_secret: STRIPE_SECRET })).body.data.webhook_url,
    braintree: (await api('PUT', '/v1/processors/braintree', BRAINTREE)).body.data.webhook_url,
    acme: (await api('PUT', '/v1/processors/acme', { webhook_secret: GENERIC_SECRET })).body.data.webhook_url,
  };
  const campaign = await api('POST', '/v1/campaigns', {
    name: 'Chaos dunning',
    trigger: 'payment_failed',
    steps: [
      { channel: 'email', template_id: 'tpl_update_payment_method', subject: 'Action needed', delay_hours: 1 },
      { channel: 'sms', template_id: 'tpl_update_payment_method', delay_hours: 24 },
      { channel: 'email', template_id: 'tpl_payment_failed', subject: 'Last reminder', delay_hours: 48 },
    ],
  });
  const campaignId = campaign.body.data.id as string;
  await api('POST', `/v1/campaigns/${campaignId}/activate`);
  await api('POST', '/v1/webhooks', { url: hooksUrl, events: ['*'] });
  const flow = await api('POST', '/v1/cancel-flows', CANCEL_FLOW);
  await api('POST', `/v1/cancel-flows/${flow.body.data.id}/activate`);

  const phases: Record<string, number> = {};
  let phaseStart = Date.now();
  const phase = (name: string) => {
    phases[name] = Date.now() - phaseStart;
    phaseStart = Date.now();
  };
  const start = Date.now();
  // Analytics are read over the run's own days: runs that took a different number of days to quiet down compare.
  const firstDay = new Date(serverSeconds() * 1000 - 24 * 3600_000).toISOString().slice(0, 10);
  const window = { from: firstDay, to: new Date(Date.parse(firstDay) + (ANALYTICS_DAYS - 1) * 24 * 3600_000).toISOString().slice(0, 10) };
  proxy.setRate(options.rate);
  await dev('POST', 'faults', { seed, rate: options.rate });

  const workload = plan(seed, options.failures);
  let deliveries = 0;
  let acknowledged = 0;
  const deliver = async (processor: Processor, build: () => { body: string; headers: Record<string, string> }) => {
    const answer = await resend.until(async () => {
      deliveries += 1;
      const { body, headers } = build(); // signed afresh on every delivery, as processors do
      const response = await fetch(urls[processor], { method: 'POST', headers, body });
      return { status: response.status, body: (await response.json()) as any };
    }, `webhook ${processor}`, PROCESSOR_RESENDS);
    acknowledged += 1;
    options.onAcknowledged?.();
    return answer.body;
  };
  // A subscriber walks the widget through to the end; every answer must be a success in the end.
  const cancel = async ({ failure, outcome }: PlannedCancellation) => {
    const expect2xx = (step: string, answer: { status: number; body: any }) => {
      if (answer.status < 200 || answer.status >= 300) throw new Error(`cancel ${step} for ${customerRef(seed, failure)}: ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body;
    };
    const start = { merchant_id: server.credentials.merchant_id, customer_id: customerRef(seed, failure), subscription_id: subscriptionRef(seed, failure), environment: 'test' };
    const { token } = expect2xx('start', await widget('start', '/start', start));
    expect2xx('read', await widget('read', `/${token}`));
    const answers = [
      { step_type: 'survey', response_json: JSON.stringify({ reason: 'too_expensive' }) },
      { step_type: 'offer', response_json: JSON.stringify({ accepted_offer: outcome === 'saved' ? { offer_type: 'discount' } : null }) },
      ...(outcome === 'churned' ? [{ step_type: 'confirm', response_json: JSON.stringify({ confirmed: true }) }] : []),
    ];
    for (const answer of answers) expect2xx('advance', await widget('advance', `/${token}/advance`, answer));
    expect2xx('complete', await widget('complete', `/${token}/complete`, { outcome, reason: outcome === 'saved' ? 'kept_subscription' : 'too_expensive' }));
  };
  const failureEvent = (failure: PlannedFailure) => () => failureDelivery(seed, failure, serverSeconds());
  // A customer's failures go in order, each once the one before was acknowledged: a failure makes the
  // card it names the customer's card (the one retries charge), so two of them answered in either
  // order (a resend after a 500 overtaking the next) would leave either card, and runs would differ by
  // timing rather than by what the faults did.
  // Processors send side by side (SENDERS at a time), a customer's failures in their own lane.
  const deliverFailures = (failures: readonly PlannedFailure[]) =>
    inLanes(failures, (failure) => String(failure.customer), SENDERS, (failure) => deliver(failure.processor, failureEvent(failure)));
  const sideBySide = <T>(items: readonly T[], send: (item: T) => Promise<unknown>) => inLanes(items, (item) => String(items.indexOf(item)), SENDERS, send);

  // The first half of the failures, then an erasure of one of their customers beside the rest. Under
  // faults an erasure (dozens of calls in one request) may take many tries: the merchant sends it again
  // until it is answered (each try takes it further), the clock waits for it as real time would (resends
  // take seconds, not days), and the erased customer's later failures come once it is answered.
  const half = Math.ceil(workload.length / 2);
  await deliverFailures(workload.slice(0, half));
  await runDue();
  const erased = workload[0]!;
  const customers = await listAll(api, '/v1/customers');
  const erasedId = customers.find((customer) => customer.psp_customer_id === customerRef(seed, erased))?.id;
  if (!erasedId) throw new Error('the customer to erase was not stored');
  const rest = workload.slice(half);
  const [erasure] = await Promise.all([
    api('DELETE', `/v1/customers/${erasedId}`),
    deliverFailures(rest.filter((failure) => failure.customer !== erased.customer)),
  ]);
  if (erasure.status !== 200) throw new Error(`erasure refused: ${erasure.status} ${JSON.stringify(erasure.body)}`);
  // A minute later, however long the erasure took: failures stamped in the second it began would be
  // taken for events from before it (ingestion acknowledges those as erased) in one run and not another.
  await advance(60);
  await deliverFailures(rest.filter((failure) => failure.customer === erased.customer));
  await runDue();

  phase('failures');
  // Manual retries of hard declines, then days pass: retries fire, dunning steps go out, some customers pay.
  const payments = await listAll(api, '/v1/payments');
  const byRef = new Map(payments.map((payment) => [payment.psp_payment_id as string, payment]));
  await sideBySide(
    workload.filter((failure) => failure.manualRetry),
    async (failure) => {
      const payment = byRef.get(paymentRef(seed, failure));
      if (payment) await api('POST', `/v1/payments/${payment.id}/retry`, undefined, `retry-${payment.id}`);
    },
  );
  for (let day = 1; day <= 10; day++) {
    await passDay();
    if (day === 2) await sideBySide(workload.filter((failure) => failure.paidLater), (failure) => deliver('acme', () => successDelivery(seed, failure, serverSeconds())));
    if (day === 3) await sideBySide(cancellations(workload), cancel);
  }
  const events = plannedEvents(seed, options.failures);
  phase('days');

  // Faults stop. The work that failed every try (the dead-letter queues) is redriven, as an operator
  // does after the alarm, and the clock runs until nothing is left scheduled: every retry run out,
  // every sequence ended, every delivery made, so a run whose work was late compares with one whose was not.
  proxy.setRate(0);
  await dev('POST', 'faults', { seed, rate: 0 });
  resend.faultsOn = false;
  const injectedPorts = (await dev('GET', 'faults')).body.injected as Record<string, number>;
  const deadSteps = await deadLetteredSteps(jobs, table);
  const settled = new Set((await listAll(api, '/v1/payments')).filter((payment) => payment.status === 'recovered').map((payment) => payment.id as string));
  const redriven = (await dev('POST', 'redrive')).body as Record<string, number>;
  for (let day = 0; day < QUIET_AFTER_DAYS; day++) {
    await passDay();
    if ((await scheduled(jobs, table)).length === 0) break;
  }
  const convergeMs = Date.now() - start;
  phase('converge');
  const snapshot = await snapshotOf(server, api, dev, options.engine, table, campaignId, receiver, window, erasedId);
  phase('snapshot');
  if (process.env.CHAOS_LOG_DIR) writeFileSync(join(process.env.CHAOS_LOG_DIR, `${table}.json`), JSON.stringify(snapshot, null, 1));
  if (process.env.CHAOS_LOG_DIR) writeFileSync(join(process.env.CHAOS_LOG_DIR, `${table}.runs.json`), JSON.stringify(jobRuns, null, 1));
  const failedRuns = jobRuns.flatMap((run) => run.ran.filter((job) => job.includes(' failed ')));
  const customerRefs = new Map((await listAll(api, '/v1/customers')).map((customer) => [customer.id as string, customer.psp_customer_id as string]));
  const customersOf = (steps: typeof deadSteps) =>
    Object.fromEntries(
      workload.filter((failure) => steps.some((step) => customerRefs.get(step.customer) === customerRef(seed, failure))).map((failure) => [customerRef(seed, failure), addressesOf(failure)]),
    );
  const lateSequences = customersOf(deadSteps);
  const settledBeforeRedrive = customersOf(deadSteps.filter((step) => step.payment !== null && settled.has(step.payment)));
  return {
    rate: options.rate,
    events,
    deliveries,
    acknowledged,
    redelivered: resend.redelivered,
    redeliveries: resend.reasons,
    phases,
    convergeMs,
    faults: { dynamodb: faultCounts(proxy), ports: injectedPorts, receiver: receiver.refused },
    redriven,
    lateSequences,
    settledBeforeRedrive,
    unexplainedWebhookRepeats: repeatedIds(receiver).filter((id) => !failedRuns.some((job) => job.startsWith(`wh.${id.slice(id.indexOf('_') + 1)}.`))),
    snapshot,
  };
}

function faultCounts(proxy: FaultProxy): Record<string, Record<string, number>> {
  return Object.fromEntries(Object.entries(proxy.stats()).filter(([, counts]) => Object.keys(counts).length > 1));
}

const repeatedIds = (receiver: Receiver): string[] => [...new Set(receiver.accepted.map((entry) => entry.id).filter((id, at, ids) => ids.indexOf(id) !== at))];

const emailOf = (failure: PlannedFailure) => `chaos.${failure.customer}@example.com`;
/** Only the generic processor's events carry a phone number. */
const phoneOf = (failure: PlannedFailure) => (failure.processor === 'acme' ? `+1415555${String(1000 + failure.customer).slice(-4)}` : undefined);
/**
 * Each customer's own cards: the same last four on two customers' failures are two cards, as the
 * networks count them (card-ledger.ts, cardIdentity), so one customer's retries never spend another's.
 */
const expiryOf = (failure: PlannedFailure) => ({ month: 1 + (failure.customer % 12), year: 2030 + Math.floor(failure.customer / 12) });
const addressesOf = (failure: PlannedFailure): string[] => [emailOf(failure), phoneOf(failure)].filter((address) => address !== undefined);

function failureDelivery(seed: number, failure: PlannedFailure, now: number): { body: string; headers: Record<string, string> } {
  const amount = 1000 + 100 * (failure.index % 7);
  const customer = customerRef(seed, failure);
  if (failure.processor === 'stripe') {
    const { charge } = stripeChargeFailure({
      declineCode: failure.hard ? 'expired_card' : 'insufficient_funds',
      customer,
      amount,
      id: `chaos_${seed}_${failure.index}`,
      last4: failure.last4,
      expiry: expiryOf(failure),
      email: emailOf(failure),
      created: now,
    });
    const body = JSON.stringify(charge);
    return { body, headers: { 'Content-Type': 'application/json', 'Stripe-Signature': stripe.webhooks.generateTestHeaderString({ payload: body, secret: STRIPE_SECRET, timestamp: now }) } };
  }
  if (failure.processor === 'braintree') {
    const xml = notificationXml(
      'subscription_charged_unsuccessfully',
      new Date(now * 1000).toISOString(),
      subscriptionXml({
        id: subscriptionRef(seed, failure),
        planId: 'gold',
        price: (amount / 100).toFixed(2),
        status: 'Past Due',
        transactions: [
          {
            id: paymentRef(seed, failure),
            amount: (amount / 100).toFixed(2),
            currencyIsoCode: 'EUR',
            status: 'processor_declined',
            processorResponseCode: failure.hard ? '2004' : '2001',
            customer: { id: customer, email: emailOf(failure), firstName: 'Chaos', lastName: String(failure.customer) },
            creditCard: { cardType: 'Visa', last4: failure.last4, expirationMonth: String(expiryOf(failure).month).padStart(2, '0'), expirationYear: String(expiryOf(failure).year) },
          },
        ],
      }),
    );
    const signed = signedBraintreeNotification(xml, { publicKey: BRAINTREE.public_key, privateKey: BRAINTREE.private_key });
    return { body: new URLSearchParams({ ...signed }).toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded' } };
  }
  return generic(
    {
      id: `evt_chaos_${seed}_${failure.index}`,
      type: 'payment.failed',
      created: now,
      customer: { id: customer, email: emailOf(failure), name: `Chaos ${failure.customer}`, phone: phoneOf(failure) },
      subscription: { id: subscriptionRef(seed, failure), plan: 'pro', amount, currency: 'EUR', status: 'past_due' },
      payment: { id: paymentRef(seed, failure), amount, currency: 'EUR', decline_code: failure.hard ? 'expired_card' : 'insufficient_funds' },
      payment_method: { type: 'card', brand: 'visa', last_four: failure.last4, exp_month: expiryOf(failure).month, exp_year: expiryOf(failure).year },
    },
    now,
  );
}

function successDelivery(seed: number, failure: PlannedFailure, now: number): { body: string; headers: Record<string, string> } {
  const amount = 1000 + 100 * (failure.index % 7);
  return generic(
    {
      id: `evt_chaos_paid_${seed}_${failure.index}`,
      type: 'payment.succeeded',
      created: now,
      customer: { id: customerRef(seed, failure) },
      payment: { id: paymentRef(seed, failure), amount, currency: 'EUR' },
    },
    now,
  );
}

function generic(event: Record<string, unknown>, now: number): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(event);
  return { body, headers: { 'Content-Type': 'application/json', 'X-Recovery-Signature': genericSignature(body, GENERIC_SECRET, now) } };
}

type Api = (method: string, path: string, body?: unknown, idempotencyKey?: string) => Promise<{ status: number; body: any }>;

async function listAll(api: Api, path: string): Promise<Record<string, any>[]> {
  const items: Record<string, any>[] = [];
  for (let page = 1; ; page++) {
    const { status, body } = await api('GET', `${path}?per_page=100&page=${page}`);
    if (status !== 200) throw new Error(`GET ${path} answered ${status}`);
    items.push(...body.data);
    if (page >= body.pagination.total_pages) return items;
  }
}

/** Drops what differs between two runs of one seed by construction: ids, times, tokens, secrets, urls, references made of ids. */
export function normalised(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalised);
  if (value === null || typeof value !== 'object') return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) ? '<time>' : value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !/^(id|.*_id|.*_at|.*_end|.*url|secret|request_id|reference|period|from|to)$/.test(key) || /^psp_/.test(key))
      .map(([key, entry]) => [key, normalised(entry)]),
  );
}

/** The erased customer's outbound events are named so in every run (`snapshotOf`). */
const ERASED_CUSTOMER = '<erased customer>';

/**
 * What an event is about, across runs: its type and the processor's payment or customer id (or the
 * widget's customer id); an event naming only our payment id (a campaign's, a recategorization) by
 * that payment's processor id, when `pspPaymentIds` knows it.
 */
function eventKey(event: Record<string, any>, pspPaymentIds: ReadonlyMap<string, string> = new Map()): string {
  const data = event.data ?? {};
  const about = data.psp_payment_id ?? pspPaymentIds.get(data.payment_id ?? data.id) ?? data.psp_customer_id ?? data.external_customer_id ?? '';
  return `${event.type} ${about}`;
}

function tally(keys: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const key of [...keys].sort()) counts[key] = (counts[key] ?? 0) + 1;
  return counts;
}

async function snapshotOf(
  server: RunningServer,
  api: Api,
  dev: (method: string, path: string) => Promise<{ status: number; body: any }>,
  engine: string,
  table: string,
  campaignId: string,
  receiver: Receiver,
  window: { from: string; to: string },
  erasedId: string,
): Promise<ChaosSnapshot> {
  const db = engineClient(engine);
  try {
    const tenant = { merchantId: server.credentials.merchant_id, environment: 'test' } as const;
    const items = async (prefix: string) => {
      const found: Record<string, any>[] = [];
      for (const pk of tenantPartitions(tenant, prefix)) {
        let start: Record<string, unknown> | undefined;
        do {
          const page = await db.send(
            new QueryCommand({ TableName: table, KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)', ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix }, ExclusiveStartKey: start }),
          );
          found.push(...(page.Items ?? []));
          start = page.LastEvaluatedKey;
        } while (start);
      }
      return found;
    };
    const bySortedKey = (rows: Record<string, any>[], key: string) => rows.map(normalised).sort((a: any, b: any) => String(a[key]).localeCompare(String(b[key])) || JSON.stringify(a).localeCompare(JSON.stringify(b)));
    const outbox = (await dev('GET', 'outbox')).body.data as { channel: string; to: string; content: Record<string, any> }[];
    const dead = await deadJobs(db, table);
    const payments = await listAll(api, '/v1/payments');
    const customers = await listAll(api, '/v1/customers');
    const pspPaymentIds = new Map(payments.map((payment) => [payment.id as string, payment.psp_payment_id as string]));
    // By design a delivery sends the event as stored when it goes out: after the erasure, scrubbed of the
    // customer's processor id (privacy), so the erased customer's events are named alike in every run.
    const outboundNames = new Map([...pspPaymentIds, [erasedId, ERASED_CUSTOMER]]);
    // Scrubbing leaves a customer event no id; only the erased customer's events are scrubbed.
    const outboundKey = (event: Record<string, any>) => (event.data?.id === null ? `${event.type} ${ERASED_CUSTOMER}` : eventKey(event, outboundNames));
    const events = await items('EVENT#');
    const enrollments = await items('ENROLLMENT#');
    const recovered = events.filter((event) => event.type === 'payment.recovered');
    const analytics = await api('GET', `/v1/analytics/recovery?from=${window.from}&to=${window.to}`);
    if (analytics.status !== 200) throw new Error(`analytics answered ${analytics.status}: ${JSON.stringify(analytics.body)}`);
    // The daily series says when: work the faults made late (a redriven retry) lands on a later day. The totals say what.
    for (const currency of analytics.body.data.currencies) delete currency.series;
    return {
      customers: bySortedKey(customers, 'psp_customer_id') as Record<string, unknown>[],
      payments: bySortedKey(payments, 'psp_payment_id') as Record<string, unknown>[],
      events: tally(events.map((event) => eventKey(event, pspPaymentIds))),
      recoveryAttempts: (await items('USAGE#')).reduce((sum, item) => sum + Number(item.recovery_attempts ?? 0), 0),
      analytics: normalised(analytics.body),
      campaign: normalised((await api('GET', `/v1/campaigns/${campaignId}`)).body.data),
      cancelFeedback: bySortedKey(await listAll(api, '/v1/cancel-feedback'), 'external_customer_id') as Record<string, unknown>[],
      messages: tally(outbox.filter((entry) => entry.channel !== 'webhook').map((entry) => `${entry.channel} ${entry.to} ${entry.content.subject ?? entry.content.text ?? ''}`)),
      // Keyed as stored events are (a dunning message by its payment, not the receiver's blank), so the same turns and allowances apply.
      webhookEvents: tally([...new Map(receiver.accepted.map((entry) => [entry.id, outboundKey(entry.event)])).values()]),
      webhookRepeats: receiver.accepted.length - new Set(receiver.accepted.map((entry) => entry.id)).size,
      deadJobs: dead,
      enrollments: Object.fromEntries(
        enrollments.filter((enrollment) => enrollment.payment_id).map((enrollment) => [pspPaymentIds.get(enrollment.payment_id), `${enrollment.status} ${enrollment.stop_reason ?? ''}, ${enrollment.messages_sent} sent`]),
      ),
      sequences: sequencesOf(enrollments, pspPaymentIds, new Map(customers.map((customer) => [customer.id as string, customer.psp_customer_id as string]))),
      recoveryChannels: Object.fromEntries(recovered.map((event) => [event.data.psp_payment_id ?? pspPaymentIds.get(event.data.id), event.data.recovery_channel])),
    };
  } finally {
    db.destroy();
  }
}

/** The engine itself, past the proxy: what the run stored, read without faults. */
const engineClient = (engine: string) =>
  DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: engine, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }));

/**
 * When the one-off jobs on the local schedule are due (recurring ones and dead letters aside), earliest
 * first; `soon`: only those AWS would run again within minutes, as a try of them failed (`tries`,
 * Lambda retries it) or a dunning step waits for a sibling's (`deferrals`, it looks again).
 */
async function scheduled(db: DynamoDBDocumentClient, table: string, soon = false): Promise<string[]> {
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: 'pk = :pk',
      FilterExpression: `entity = :job AND attribute_not_exists(dead)${soon ? ' AND (tries > :none OR payload.deferrals > :none)' : ''}`,
      ExpressionAttributeValues: { ':pk': 'LOCALJOB#default', ':job': 'local_job', ...(soon ? { ':none': 0 } : {}) },
      ProjectionExpression: 'run_at',
      ConsistentRead: true,
    }),
  );
  return Items.map((item) => item.run_at as string).sort();
}

async function deadJobs(db: DynamoDBDocumentClient, table: string): Promise<number> {
  const { Items = [] } = await db.send(
    new QueryCommand({ TableName: table, KeyConditionExpression: 'pk = :pk', FilterExpression: 'dead = :dead', ExpressionAttributeValues: { ':pk': 'LOCALJOB#default', ':dead': true } }),
  );
  return Items.length;
}

/** Each customer's failure sequences (one campaign), in the order their first steps came due: enrolled first, then the smaller id. */
function sequencesOf(enrollments: Record<string, any>[], pspPaymentIds: ReadonlyMap<string, string>, pspCustomerIds: ReadonlyMap<string, string>): Record<string, string[]> {
  const sequences: Record<string, string[]> = {};
  const inDueOrder = enrollments.filter((enrollment) => enrollment.payment_id).sort((a, b) => a.enrolled_at.localeCompare(b.enrolled_at) || a.id.localeCompare(b.id));
  for (const enrollment of inDueOrder) (sequences[pspCustomerIds.get(enrollment.customer_id) ?? ''] ??= []).push(pspPaymentIds.get(enrollment.payment_id) ?? '');
  return sequences;
}

/** The dunning steps in the dead letters: their customers and payments (our ids). */
async function deadLetteredSteps(db: DynamoDBDocumentClient, table: string): Promise<{ customer: string; payment: string | null }[]> {
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: 'pk = :pk',
      FilterExpression: 'dead = :dead AND kind = :step',
      ExpressionAttributeValues: { ':pk': 'LOCALJOB#default', ':dead': true, ':step': 'campaign-step' },
      ConsistentRead: true,
    }),
  );
  return Items.map((item) => ({ customer: item.payload.customer_id as string, payment: (item.payload.payment_id as string | null) ?? null }));
}

const DUNNING_MESSAGE = /^(campaign\.message_sent|card_update\.link_sent) (\S+)$/;

/**
 * The stored events with a dunning message named by its customer, not by the payment: one campaign
 * speaks to a customer in due order, 12 h apart across their failures (docs/decisions.md, "A
 * customer's dunning messages go in due order", "Several failures, one voice"), and a fault can move
 * which of their failures a message is about (a retry job's Lambda retry enrolls its failure minutes
 * later; a step retried a minute on finds its sibling's step took the turn), not how many messages they
 * get. What they got is compared in the outbox.
 */
export function eventsByCustomer(snapshot: ChaosSnapshot, counts: Record<string, number> = snapshot.events): Record<string, number> {
  const customers = new Map(Object.entries(snapshot.sequences).flatMap(([customer, payments]) => payments.map((payment) => [payment, customer] as const)));
  const events: Record<string, number> = {};
  for (const [key, count] of Object.entries(counts)) {
    const message = DUNNING_MESSAGE.exec(key);
    const named = message && customers.has(message[2]!) ? `${message[1]} ${customers.get(message[2]!)}` : key;
    events[named] = (events[named] ?? 0) + count;
  }
  return events;
}

/**
 * The analytics without what depends on whether some payments were messaged (`unmessaged`: taken out
 * of the messaged counts) and, for some (`uncredited`), which channel their recovery was credited to: a
 * recovery after a message is the campaign's, without one the retry's or the processor's.
 */
function analyticsWithout(snapshot: ChaosSnapshot, unmessaged: ReadonlySet<string>, uncredited: ReadonlySet<string>): unknown {
  type Amounts = { count: number; amount: number };
  const analytics = structuredClone(snapshot.analytics) as {
    data: { totals: { messaged_count: number }; currencies: { currency: string; messaged: Amounts; by_channel: Record<string, Amounts> }[] };
  };
  const take = (from: Amounts | undefined, payment: Record<string, unknown>) => {
    if (!from) return;
    from.count -= 1;
    from.amount -= payment.amount as number;
  };
  for (const payment of snapshot.payments) {
    const psp = payment.psp_payment_id as string;
    const entry = analytics.data.currencies.find((currency) => currency.currency === String(payment.currency).toLowerCase());
    if (unmessaged.has(psp) && snapshot.events[`campaign.message_sent ${psp}`]) {
      analytics.data.totals.messaged_count -= 1;
      take(entry?.messaged, payment);
    }
    const channel = snapshot.recoveryChannels[psp];
    if (uncredited.has(psp) && channel) take(entry?.by_channel[channel], payment);
  }
  return analytics;
}

/**
 * The analytics a run is compared on, beside the fault-free run's: without the messages and credit of
 * the payments among a customer's several sequences (which of them a message is about can move,
 * `eventsByCustomer`), nor those of customers whose step waited in the dead letters while they paid
 * (`allowedFewerMessages`): messaged in one run, not in the other, so credited to another channel.
 */
export function comparableAnalytics(snapshot: ChaosSnapshot, faulted: ChaosReport): unknown {
  const moved = new Set([...Object.values(snapshot.sequences).filter((payments) => payments.length > 1).flat(), ...paidWhileDead(faulted)]);
  return analyticsWithout(snapshot, moved, moved);
}

/** The failures with a sequence of the customers whose dunning step waited in the dead letters while they paid. */
const paidWhileDead = (faulted: ChaosReport): Set<string> =>
  new Set(Object.keys(faulted.settledBeforeRedrive).flatMap((customer) => faulted.snapshot.sequences[customer] ?? []));

/**
 * Whether a key is the campaign's credit for a recovery (`campaign.recovered`) of a customer whose step
 * waited in the dead letters while they paid: in the fault-free run the step ran first and may have
 * stopped the sequence (a card changed meanwhile: no credit) or messaged them (credit), so the credit
 * may go either way.
 */
const creditMoved = (faulted: ChaosReport): ((key: string) => boolean) => {
  const payments = paidWhileDead(faulted);
  return (key) => {
    const credit = /^campaign\.recovered (\S+)$/.exec(key);
    return credit !== null && payments.has(credit[1]!);
  };
};

/** The campaign's stats without the credit of those customers' recoveries (`creditMoved`); its rate follows the counts compared. */
function comparableCampaign(snapshot: ChaosSnapshot, faulted: ChaosReport): unknown {
  const campaign = structuredClone(snapshot.campaign) as Record<string, any>;
  const moved = creditMoved(faulted);
  for (const payment of snapshot.payments) {
    const credit = `campaign.recovered ${payment.psp_payment_id}`;
    if (!moved(credit) || !snapshot.events[credit]) continue;
    campaign.recovered_count -= 1;
    campaign.stats.recovered_count -= 1;
    campaign.stats.total_recovered_amount -= payment.amount as number;
  }
  delete campaign.recovery_rate;
  delete campaign.stats.recovery_rate;
  return campaign;
}

/**
 * What a run may have beyond the fault-free one because a dunning step of a customer's waited in the
 * dead letters until the redrive, days late: more messages to that customer (as events, and in the
 * outbox), as the sequence resumed past the 12 h spacing that kept it silent beside its sibling.
 * Nothing lost, nothing about anyone else.
 */
export function allowedDunningDifference(report: ChaosReport): (key: string) => boolean {
  return dunningOf(Object.entries(report.lateSequences).filter(([customer]) => (report.snapshot.sequences[customer]?.length ?? 0) > 1));
}

/**
 * What a run may lack beside the fault-free one because a dunning step waited in the dead letters
 * while its payment was settled: by design the redriven step finds the sequence stopped and sends
 * nothing, where the fault-free run's step went out before the payment was paid. Fewer messages to
 * those customers (as events, in the outbox, delivered outbound), nothing else.
 */
export function allowedFewerMessages(report: ChaosReport): (key: string) => boolean {
  return dunningOf(Object.entries(report.settledBeforeRedrive));
}

/** Whether a key is a dunning message (an event by customer, an email or sms) to one of the customers (processor id, addresses). */
function dunningOf(customers: readonly [string, readonly string[]][]): (key: string) => boolean {
  return (key) =>
    customers.some(([customer, addresses]) => {
      const event = DUNNING_MESSAGE.exec(key);
      return event ? event[2] === customer : /^(email|sms) /.test(key) && addresses.some((address) => key.includes(` ${address} `));
    });
}

/** Each customer's failures with a sequence, whatever their due order. */
const sequenceSets = (snapshot: ChaosSnapshot) => Object.fromEntries(Object.entries(snapshot.sequences).map(([customer, payments]) => [customer, [...payments].sort()]));

/** Records compared whole: each as its JSON, counted, so one that differs is one more and one fewer. */
const asCounts = (records: readonly unknown[]) => tally(records.map((record) => JSON.stringify(record)));

/** One document compared field by field: each leaf as `path = value`, so a difference names the field, not the whole document. */
function asLeaves(value: unknown, path = ''): Record<string, number> {
  if (value === null || typeof value !== 'object') return { [`${path || '.'} = ${JSON.stringify(value)}`]: 1 };
  // A list of currencies is named by currency, so one currency's change does not shift the others' paths.
  const entries = Array.isArray(value) ? value.map((entry, i) => [entry?.currency ?? String(i), entry] as const) : Object.entries(value);
  return Object.assign({}, ...entries.map(([key, entry]) => asLeaves(entry, `${path}.${key}`)));
}

/**
 * A faulted run beside the fault-free run of its seed, by check (the chaos test asserts each empty,
 * the bench reports them): what it has more of (duplicates) and less of (lost). Strict but for the
 * allowances, each for one case the design makes: dunning messages by customer (`eventsByCustomer`), more
 * beside a late sibling (`allowedDunningDifference`), fewer where the payment was settled before the
 * redrive (`allowedFewerMessages`), analytics without what those move (`comparableAnalytics`), the erased
 * customer's outbound events named alike (ERASED_CUSTOMER).
 */
export function compareOutcome(faulted: ChaosReport, clean: ChaosReport): Record<string, { duplicates: string[]; lost: string[] }> {
  // By design: a sibling sequence goes on without a dead-lettered step, which then resumes days late.
  const more = allowedDunningDifference(faulted);
  // By design: a redriven step whose payment was paid meanwhile finds its sequence stopped and sends nothing.
  const fewer = allowedFewerMessages(faulted);
  // By design: the same customers' recoveries may be credited to the campaign in one run and not the other.
  const credit = creditMoved(faulted);
  const withoutKey = (entry: string) => entry.replace(/ ×\d+$/, '');
  const beyondAllowed = ({ duplicates, lost }: ReturnType<typeof countDifferences>) => ({
    duplicates: duplicates.filter((entry) => !more(withoutKey(entry)) && !credit(withoutKey(entry))),
    lost: lost.filter((entry) => !fewer(withoutKey(entry)) && !credit(withoutKey(entry))),
  });
  const records = (of: (report: ChaosReport) => readonly unknown[]) => countDifferences(asCounts(of(faulted)), asCounts(of(clean)));
  return {
    'processor events acknowledged': countDifferences({ acknowledged: faulted.acknowledged }, { acknowledged: faulted.events }),
    'stored events': beyondAllowed(countDifferences(eventsByCustomer(faulted.snapshot), eventsByCustomer(clean.snapshot))),
    'emails and sms in the outbox': beyondAllowed(countDifferences(faulted.snapshot.messages, clean.snapshot.messages)),
    customers: records((report) => report.snapshot.customers),
    payments: records((report) => report.snapshot.payments),
    'attempts counted against the plan': records((report) => [report.snapshot.recoveryAttempts]),
    analytics: countDifferences(asLeaves(comparableAnalytics(faulted.snapshot, faulted)), asLeaves(comparableAnalytics(clean.snapshot, faulted))),
    "customers' failure sequences": records((report) => Object.entries(sequenceSets(report.snapshot))),
    'campaign stats': countDifferences(asLeaves(comparableCampaign(faulted.snapshot, faulted)), asLeaves(comparableCampaign(clean.snapshot, faulted))),
    'cancel feedback': records((report) => report.snapshot.cancelFeedback),
    'outbound events the receiver took': beyondAllowed(
      countDifferences(eventsByCustomer(faulted.snapshot, faulted.snapshot.webhookEvents), eventsByCustomer(clean.snapshot, clean.snapshot.webhookEvents)),
    ),
    'an outbound event delivered twice, not after a failed run of its delivery': { duplicates: faulted.unexplainedWebhookRepeats, lost: [] },
    'jobs that failed every try, after the redrive': countDifferences({ 'dead jobs': faulted.snapshot.deadJobs }, { 'dead jobs': 0 }),
  };
}

/** Keys whose counts differ between a run and the fault-free one: more (duplicates) or fewer (lost). */
export function countDifferences(faulted: Record<string, number>, clean: Record<string, number>): { duplicates: string[]; lost: string[] } {
  const keys = new Set([...Object.keys(faulted), ...Object.keys(clean)]);
  const duplicates: string[] = [];
  const lost: string[] = [];
  for (const key of keys) {
    const difference = (faulted[key] ?? 0) - (clean[key] ?? 0);
    if (difference > 0) duplicates.push(`${key} ×${difference}`);
    if (difference < 0) lost.push(`${key} ×${-difference}`);
  }
  return { duplicates, lost };
}
