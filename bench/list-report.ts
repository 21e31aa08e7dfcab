/**
 * The list bench's verdicts and summary section, apart from the bench itself so the summary can be
 * rendered without loading the runtime (bench/run.ts imports the runtime only after the engine starts).
 */

/** Every request asks for the default page size. */
export const PER_PAGE = 20;
/**
 * Issue 26: every request reads at most 2 × per_page + 50 items; p99 at the largest size within 1.5×
 * of the smallest's, judged on the service's own time (docs/decisions.md, "List latency judged
 * outside the engine").
 */
export const LIST_TARGETS = { itemsRead: 2 * PER_PAGE + 50, p99Ratio: 1.5 } as const;
/** BatchWrite requests in flight while seeding. */
export const WRITERS = 8;

interface CaseResult {
  total: number;
  items_read: { median: number; max: number };
  read_capacity_units: { median: number };
  latency_ms: { median: number; p99: number };
  /** Absent from older runs: their growth is judged on the whole latency. */
  engine_ms?: { p99: number };
  service_ms?: { median: number; p99: number };
}
interface SizeResult {
  customers: number;
  payments: number;
  seed_seconds: number;
  samples: number;
  cases: Record<string, CaseResult>;
}

const verdict = (pass: boolean) => (pass ? 'pass' : '**FAIL**');

/** Cases whose items-read target a decision record gives up; their FAIL names the record (docs/decisions.md). */
export const KEPT_FAILURES: Readonly<Record<string, string>> = {
  'customers, page 250 sorted by name': 'No rank counters for name and email',
  'customers, page 250 sorted by email': 'No rank counters for name and email',
};

/** The items-read verdict; a FAIL a decision keeps points to its record. */
function itemsVerdict(name: string, items: number): string {
  if (items <= LIST_TARGETS.itemsRead) return verdict(true);
  const record = KEPT_FAILURES[name];
  return record === undefined ? verdict(false) : `${verdict(false)}, kept: docs/decisions.md "${record}"`;
}

/** The summary's section: each case's reads at each size with its verdict, and the p99 growth from the smallest size to the largest. */
export function renderLists({ sizes }: { sizes: Record<string, SizeResult> }): string[] {
  const runs = Object.values(sizes).sort((a, b) => a.customers - b.customers);
  const smallest = runs[0]!;
  const largest = runs.at(-1)!;
  const count = (n: number) => n.toLocaleString('en-US');
  const split = runs.every((run) => Object.values(run.cases).every((c) => c.service_ms !== undefined));
  const own = (c: CaseResult) => (split ? c.service_ms!.p99 : c.latency_ms.p99);
  const header = runs.map((run) => `${count(run.customers)} customers: items read (max) · RCU · ms median / p99${split ? ' (the service\'s own p99 · the engine\'s)' : ''}`);
  const rows = Object.keys(smallest.cases).map((name) => {
    const cells = runs.map((run) => {
      const c = run.cases[name]!;
      const parts = split ? ` (${c.service_ms!.p99} · ${c.engine_ms!.p99})` : '';
      return `${c.items_read.median} (${c.items_read.max}) ${itemsVerdict(name, c.items_read.max)} · ${c.read_capacity_units.median} · ${c.latency_ms.median} / ${c.latency_ms.p99}${parts}`;
    });
    const [small, large] = [smallest.cases[name]!, largest.cases[name]!];
    const ratio = own(large) / own(small);
    const engine = split ? ` (the engine's ${(large.engine_ms!.p99 / small.engine_ms!.p99).toFixed(2)}×, no limit)` : '';
    // One size measured: there is no growth to judge.
    const growth = runs.length === 1 ? '–' : `${ratio.toFixed(2)}× ${verdict(ratio <= LIST_TARGETS.p99Ratio)}${engine}`;
    return `| ${name} | ${cells.join(' | ')} | ${growth} |`;
  });
  return [
    '## Lists at scale',
    '',
    `One merchant, payments over 90 days (${runs.map((run) => `${count(run.customers)} customers and ${count(run.payments)} payments`).join('; ')}); ` +
      `${smallest.samples} requests per case (5 for a case slower than a second) through the real handlers in process, the sizes taking turns request by request so the load weighs on each alike, per_page ${PER_PAGE}. Items read (the median, and the most any request read) and read capacity units are per request, ` +
      `the API key lookup and rate-limit write left out (the same for every request). Targets (issue 26): items read ≤ 2 × per_page + 50 = ${LIST_TARGETS.itemsRead} by every request, ` +
      (runs.length === 1 ? 'and p99 growth, judged when more than one size is measured. ' : `and p99 at ${count(largest.customers)} customers ≤ ${LIST_TARGETS.p99Ratio}× p99 at ${count(smallest.customers)}. `) +
      'DynamoDB Local: latencies are relative, not AWS figures. ' +
      (split
        ? "The growth is judged on the service's own time, a request's latency outside its DynamoDB calls: DynamoDB Local's time for the same requests grows with the tenant's size (the engine's column), where DynamoDB's follows the items read (docs/decisions.md, \"List latency judged outside the engine\")."
        : 'The growth is judged on the whole latency.'),
    '',
    `| Case | ${header.join(' | ')} | ${runs.length === 1 ? 'p99 growth' : `p99 ${count(largest.customers)} ÷ ${count(smallest.customers)}`} |`,
    `|---|${runs.map(() => '---').join('|')}|---|`,
    ...rows,
    '',
    `Seeding: ${runs.map((run) => `${count(run.customers)} customers in ${run.seed_seconds} s`).join(', ')} (BatchWrite, ${WRITERS} writers; search entries only in the partitions the searches read).`,
    '',
  ];
}
