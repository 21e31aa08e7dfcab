/**
 * Cold starts: a fresh `node` per sample imports one bundle of this run (bench/bundles.ts) and
 * handles one event (bench/cold-start-events.ts), in AWS mode as deployed: the system clock, the AWS
 * adapters, configuration read at import. DynamoDB is the bench's DynamoDB Local (the data of
 * bench/fixture.ts), warmed up first as DynamoDB in AWS always is (bench/engine-warmup.ts); every
 * other AWS API the SDK calls goes to a stub that accepts the call, so no request leaves the machine. Samples interleave the bundles, each round in its own shuffled order, so
 * drift on the machine and a slot's neighbours spread evenly.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { lambdaEnvironment } from '../lib/bundling.ts';
import { VAULT_KEY_FILE } from '../bin/local/credentials.ts';
import { LocalKeyVault } from '../shared/adapters/local/local-key-vault.ts';
import { runtime } from '../shared/runtime.ts';
import { JOBS } from '../shared/jobs.ts';
import { BUNDLE_DIR, bundles, FLOOR } from './bundles.ts';
import { coldStartEvent, floorEvent } from './cold-start-events.ts';
import { warmEngine } from './engine-warmup.ts';
import { seedFixture } from './fixture.ts';
import { progress } from './progress.ts';
import { countingProxy, describeRounds, type FirstRequestCalls } from './request-tally.ts';
import { seededRandom, summarize } from './support.ts';

const PROBE = join(import.meta.dirname, 'cold-start-probe.mjs');
const PROBE_TIMEOUT_MS = 60_000;
const ACCOUNT = '000000000000';
const REGION = 'us-east-1';

interface Sample {
  import_ms: number;
  import_cpu_ms: number;
  first_request_ms: number;
  first_request_cpu_ms: number;
  outcome: string;
  error?: string;
}

/**
 * Answers every AWS API call with 200 and an empty JSON object: the SDK call completes, nothing is sent
 * anywhere. But KMS Decrypt answers as KMS would for the credentials the fixture sealed (with the
 * local key vault, which stands in for KMS when seeding): with `{}` a function opening a processor
 * connection failed its first request, and the bench timed that error's path (the inbound generic
 * webhook answered 500 after parsing the whole source map to log the stack) instead of the work.
 */
async function acceptingStub() {
  let answered = 0;
  const vault = new LocalKeyVault(VAULT_KEY_FILE);
  const answer = async (target: string | undefined, body: string): Promise<object> => {
    if (target !== 'TrentService.Decrypt') return {};
    const { CiphertextBlob, EncryptionContext, KeyId } = JSON.parse(body) as { CiphertextBlob: string; EncryptionContext?: Record<string, string>; KeyId: string };
    const plaintext = await vault.decryptDataKey(Buffer.from(CiphertextBlob, 'base64'), EncryptionContext ?? {});
    return { KeyId, Plaintext: Buffer.from(plaintext).toString('base64'), EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
  };
  const server = createServer((request, response) => {
    answered++;
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      answer(request.headers['x-amz-target'] as string | undefined, Buffer.concat(chunks).toString('utf8')).then(
        (body) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
        (error: Error) => response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ __type: 'InvalidCiphertextException', message: error.message })),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** The calls answered since the last call, and a fresh count. */
    take: () => {
      const taken = answered;
      answered = 0;
      return taken;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * What the functions find in AWS: what CDK gives every function (lib/bundling.ts, the same call),
 * then every requireEnv of shared/: the scheduler's group, role and targets, the completion queue,
 * mail and SMS identities. Fake but well-formed; credentials are dummies, and no shared config file
 * is read, as on Lambda. LOG_LEVEL is left unset, as deployed, so request lines are written (the
 * probe's stdout goes nowhere). A variable added to shared/ and missing here shows as 'init failed'
 * with its name in the results.
 */
export function awsModeEnvironment(dynamodbEndpoint: string, tableName: string, otherServices: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    ...lambdaEnvironment({ tableName, metricsNamespace: 'PaymentRecovery/bench' }),
    AWS_REGION: REGION,
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_CONFIG_FILE: join(BUNDLE_DIR, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(BUNDLE_DIR, 'no-aws-credentials'),
    AWS_ENDPOINT_URL_DYNAMODB: dynamodbEndpoint,
    AWS_ENDPOINT_URL: otherServices,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    SCHEDULE_GROUP: 'bench',
    SCHEDULER_ROLE_ARN: `arn:aws:iam::${ACCOUNT}:role/bench-scheduler`,
    SCHEDULER_DEAD_LETTER_ARN: `arn:aws:sqs:${REGION}:${ACCOUNT}:bench-scheduler-dead-letters`,
    CREDENTIALS_KEY_ID: `arn:aws:kms:${REGION}:${ACCOUNT}:key/00000000-0000-0000-0000-000000000000`,
    API_BASE_URL: 'https://api.bench.invalid',
    EDGE_URL: 'https://edge.bench.invalid',
    JOB_TARGETS: JSON.stringify(Object.fromEntries(JOBS.map((job) => [job.kind, `arn:aws:lambda:${REGION}:${ACCOUNT}:function:bench-job-${job.kind}`]))),
    CANCEL_COMPLETION_QUEUE_URL: `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/bench-cancel-completions`,
    MAIL_FROM: 'recovery@bench.invalid',
    SMS_ORIGINATION_IDENTITY: 'bench',
    CORS_ORIGINS: 'https://app.bench.invalid',
  };
}

/** One fresh process: imports the bundle and hands it the event in `eventFile`. */
function probe(bundle: string, eventFile: string, env: NodeJS.ProcessEnv): Promise<Sample> {
  const resultFile = bundle.replace(/\.mjs$/, '.result.json');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PROBE, bundle, eventFile, resultFile], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(JSON.parse(readFileSync(resultFile, 'utf8')) as Sample);
      else reject(new Error(`cold-start probe of ${bundle} exited ${code}: ${stderr.slice(-2000)}`));
    });
  });
}

/** Fisher-Yates over a copy. */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/** Medians over the runs, and every outcome seen with its count ('200 ×5'). */
function describeSamples(samples: readonly Sample[]) {
  const outcomes = new Map<string, number>();
  for (const sample of samples) outcomes.set(sample.outcome, (outcomes.get(sample.outcome) ?? 0) + 1);
  const errors = [...new Set(samples.flatMap((sample) => (sample.error ? [sample.error] : [])))];
  return {
    import_ms: summarize(samples.map((sample) => sample.import_ms)).median,
    import_cpu_ms: summarize(samples.map((sample) => sample.import_cpu_ms)).median,
    first_request_ms: summarize(samples.map((sample) => sample.first_request_ms)).median,
    init_ms: summarize(samples.map((sample) => sample.import_ms + sample.first_request_ms)).median,
    init_cpu_ms: summarize(samples.map((sample) => sample.import_cpu_ms + sample.first_request_cpu_ms)).median,
    outcomes: Object.fromEntries(outcomes),
    ...(errors.length ? { errors } : {}),
  };
}

export async function benchColdStart(runs: number) {
  const built = await bundles();
  const fixture = await progress.timed('seeding the fixture', seedFixture);
  await progress.timed('warming DynamoDB Local', () => warmEngine(runtime.db, runtime.tableName));
  const stub = await acceptingStub();
  const proxy = await countingProxy(process.env.AWS_ENDPOINT_URL_DYNAMODB!);
  try {
    const env = awsModeEnvironment(process.env.AWS_ENDPOINT_URL_DYNAMODB!, process.env.TABLE_NAME!, stub.url);
    /** Beside its bundle: payments--get.mjs gets payments--get.event.json. */
    const writeEvent = (bundle: string, event: unknown) => {
      const file = bundle.replace(/\.mjs$/, '.event.json');
      writeFileSync(file, JSON.stringify(event));
      return file;
    };
    const floors = built.floors.map((floor) => ({ kind: 'floor' as const, name: floor.name, file: floor.file, event: writeEvent(floor.file, floorEvent(fixture)), env }));
    const functions = built.functions.map((fn) => ({ kind: 'function' as const, name: fn.name, file: fn.file, event: writeEvent(fn.file, coldStartEvent(fn.entry, fixture)), env }));
    // Two first requests per bundle through the counting proxy, outside the timed samples: the first
    // warms the machine (node itself, the page cache: without it the first processes ran several times
    // slower) and uses up what a first request uses up (a fixture record deleted, a job done), so the
    // second records the calls every timed sample makes, which that function's floor then makes.
    const record = async (target: (typeof functions)[number] | (typeof floors)[number]) => {
      proxy.take();
      stub.take();
      await probe(target.file, target.event, { ...target.env, AWS_ENDPOINT_URL_DYNAMODB: proxy.url });
      const { operations, rounds } = proxy.take();
      return { calls: { dynamodb: operations, other_aws: stub.take() } satisfies FirstRequestCalls, rounds };
    };
    const warming = progress.step('first requests, warming up and recording calls', 2 * (floors.length + functions.length));
    const recorded = new Map<string, Awaited<ReturnType<typeof record>>>();
    for (const pass of [0, 1]) {
      for (const target of [...floors, ...functions]) {
        const calls = await record(target);
        if (pass === 1) recorded.set(target.name, calls);
        warming.advance();
      }
    }
    warming.done();
    const floorFile = built.floors.find((floor) => floor.variant === FLOOR)!.file;
    const callFloors = functions.map((fn) => ({
      kind: 'calls floor' as const,
      name: `floor making the calls of ${fn.name}`,
      file: floorFile,
      event: floors.find((floor) => floor.file === floorFile)!.event,
      env: { ...env, FLOOR_CALLS: JSON.stringify(recorded.get(fn.name)!.rounds) },
    }));
    const targets = [...floors, ...functions, ...callFloors];
    const samples = new Map<string, Sample[]>(targets.map((target) => [target.name, []]));
    // Each round in its own order (seeded, so a run can be repeated): no bundle always runs first, or
    // after the same neighbour (in a fixed order the floor ran after the same function every round and
    // came out 14% slower than its own copy started elsewhere in the round).
    const random = seededRandom(runs);
    const timing = progress.step(`cold starts timed (${runs} rounds of ${targets.length})`, runs * targets.length);
    for (let run = 0; run < runs; run++) {
      for (const target of shuffled(targets, random)) {
        samples.get(target.name)!.push(await probe(target.file, target.event, target.env));
        timing.advance();
      }
    }
    timing.done();
    const figures = (name: string) => ({ ...describeSamples(samples.get(name)!), first_request_calls: recorded.get(name)!.calls });
    // The floor's figure the bundle-independent ratios use: every sample of its bundle, under both its names.
    const floorSamples = built.floors.filter((floor) => floor.variant === FLOOR || floor.variant.repeat).flatMap((floor) => samples.get(floor.name)!);
    return {
      runs,
      floor: FLOOR.name,
      floor_pooled: describeSamples(floorSamples),
      floor_variants: floors.map((floor, index) => ({ name: floor.name, ...figures(floor.name), repeat: built.floors[index]!.variant.repeat ?? false })),
      functions: functions.map((fn, index) => ({
        handler: fn.name,
        ...figures(fn.name),
        call_rounds: describeRounds(recorded.get(fn.name)!.rounds),
        floor: describeSamples(samples.get(callFloors[index]!.name)!),
      })),
    };
  } finally {
    await proxy.close();
    await stub.close();
  }
}
