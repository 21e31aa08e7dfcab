/**
 * One cold start, in a fresh `node` (no tsx, no loader): imports a bundle and hands its handler one
 * event, timing the two apart with process.hrtime, and writes what happened to a JSON file (the
 * handler's own logs own stdout). CPU time is kept beside wall time: on a busy machine wall time
 * waits for the CPU, CPU time does not (nor for DynamoDB, which runs in its own process). Plain JavaScript: anything this file imports would be part of
 * what it measures. Usage: node cold-start-probe.mjs <bundle.mjs> <event.json> <result.json>.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [bundle, eventFile, resultFile] = process.argv.slice(2);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const context = {
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'cold-start-probe',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:cold-start-probe',
  memoryLimitInMB: '512',
  awsRequestId: 'cold-start-probe',
  logGroupName: '/aws/lambda/cold-start-probe',
  logStreamName: 'probe',
  getRemainingTimeInMillis: () => 29_000,
};

/** What the first invocation answered: an HTTP status, a batch's failed records, or that a job returned. */
function outcomeOf(result) {
  if (result && typeof result.statusCode === 'number') return String(result.statusCode);
  if (result && Array.isArray(result.batchItemFailures)) return result.batchItemFailures.length === 0 ? 'ok' : `${result.batchItemFailures.length} failed`;
  return 'ok';
}

const ms = (from, to) => Number(to - from) / 1e6;
const cpuMs = (usage) => (usage.user + usage.system) / 1000;

const finish = (result) => {
  writeFileSync(resultFile, JSON.stringify(result));
  // Open sockets (the SDK's keep-alive agent) would hold the process; its measurement is done.
  process.exit(0);
};
const failure = (thrown) => ({ outcome: `threw ${thrown?.name ?? 'Error'}`, error: String(thrown?.message ?? thrown).slice(0, 200) });

const started = process.hrtime.bigint();
const cpu = process.cpuUsage();
let module;
try {
  module = await import(pathToFileURL(bundle).href);
} catch (thrown) {
  // A function failing its cold start (missing configuration) is a finding, not a crash of the bench.
  const importMs = ms(started, process.hrtime.bigint());
  finish({ import_ms: importMs, import_cpu_ms: cpuMs(process.cpuUsage(cpu)), first_request_ms: 0, first_request_cpu_ms: 0, ...failure(thrown), outcome: 'init failed' });
}
const imported = process.hrtime.bigint();
const importCpuMs = cpuMs(process.cpuUsage(cpu));
const imports = { import_ms: ms(started, imported), import_cpu_ms: importCpuMs };
const requestCpu = process.cpuUsage();
let answer;
try {
  answer = { outcome: outcomeOf(await module.handler(event, context)) };
} catch (thrown) {
  answer = failure(thrown);
}
finish({ ...imports, first_request_ms: ms(imported, process.hrtime.bigint()), first_request_cpu_ms: cpuMs(process.cpuUsage(requestCpu)), ...answer });
