/**
 * The targets of issue #9, as ratios to the floor measured in the same run and as DynamoDB requests
 * per call, and how the bench reports them: every function's ratios with pass or FAIL, worst first.
 */
export const TARGETS = {
  /** A function's minified bundle, over the floor's. */
  bundleRatio: 1.25,
  /** A function's cold start (import and first request), over the floor's. */
  initRatio: 1.25,
  /** Ingested events per second through the local server, over the ingestion floor's in the same run (at least). */
  ingestionFloorRatio: 0.5,
  /** DynamoDB requests to ingest a webhook reporting a new failure. */
  ingestionRequests: 3,
  /** DynamoDB requests of an authenticated read: key lookup (cached briefly), rate-limit update, data. */
  authenticatedReadRequests: 3,
} as const;

export interface FunctionFigures {
  handler: string;
  /** Minified bundle, from the bundles bench. */
  bytes?: number;
  /** Import plus first request, median wall time, from the cold-start bench: what the target is about. */
  initMs?: number;
  /**
   * The same in CPU time. Shown beside the wall time, judged by the same limit: on a busy machine
   * wall time also measures the neighbours, and a FAIL on wall time alone is worth a second run.
   */
  initCpuMs?: number;
}

export interface Ratio {
  value: number;
  ratio: number;
  pass: boolean;
}

export interface RatioRow {
  handler: string;
  bundle?: Ratio;
  init?: Ratio;
  initCpu?: Ratio;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

function ratioOf(value: number | undefined, floor: number | undefined, limit: number): Ratio | undefined {
  if (value === undefined || floor === undefined || floor <= 0) return undefined;
  const ratio = round2(value / floor);
  return { value, ratio, pass: ratio <= limit };
}

/** Each function against the floor, the worst ratio first (by the larger of its two). */
export function ratioRows(functions: readonly FunctionFigures[], floor: Omit<FunctionFigures, 'handler'>): RatioRow[] {
  const worst = (row: RatioRow) => Math.max(row.bundle?.ratio ?? 0, row.init?.ratio ?? 0);
  return functions
    .map((figures) => ({
      handler: figures.handler,
      bundle: ratioOf(figures.bytes, floor.bytes, TARGETS.bundleRatio),
      init: ratioOf(figures.initMs, floor.initMs, TARGETS.initRatio),
      initCpu: ratioOf(figures.initCpuMs, floor.initCpuMs, TARGETS.initRatio),
    }))
    .sort((a, b) => worst(b) - worst(a) || a.handler.localeCompare(b.handler));
}

export const kilobytes = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;
const verdict = (pass: boolean) => (pass ? 'pass' : '**FAIL**');
const cell = (ratio: Ratio | undefined, show: (value: number) => string) =>
  ratio ? [show(ratio.value), `${ratio.ratio.toFixed(2)}× ${verdict(ratio.pass)}`] : ['–', '–'];

/** How many functions meet a target, e.g. '3 of 49 functions pass'. */
export function passCount(rows: readonly RatioRow[], pick: (row: RatioRow) => Ratio | undefined): string {
  const measured = rows.map(pick).filter((ratio): ratio is Ratio => ratio !== undefined);
  return `${measured.filter((ratio) => ratio.pass).length} of ${measured.length} functions pass`;
}

/** The markdown table: the floor first, then the functions (the first `limit` of them, worst first). */
export function renderRatioTable(rows: readonly RatioRow[], floor: Omit<FunctionFigures, 'handler'>, limit = rows.length): string[] {
  const line = (name: string, cells: string[][]) => `| ${name} | ${cells.flat().join(' | ')} |`;
  const floorCell = (value: number | undefined, show: (value: number) => string) => [value === undefined ? '–' : show(value), '1.00×'];
  return [
    `| Function | Bundle | × floor (≤ ${TARGETS.bundleRatio}) | Init ms | × floor (≤ ${TARGETS.initRatio}) | Init CPU ms | × floor |`,
    '|---|---|---|---|---|---|---|',
    line('**floor**', [floorCell(floor.bytes, kilobytes), floorCell(floor.initMs, String), floorCell(floor.initCpuMs, String)]),
    ...rows.slice(0, limit).map((row) => line(`\`${row.handler}\``, [cell(row.bundle, kilobytes), cell(row.init, String), cell(row.initCpu, String)])),
  ];
}

export interface CountCheck {
  name: string;
  /** Median DynamoDB requests per call; undefined when that bench has no results yet. */
  measured: number | undefined;
  limit: number;
}

export interface FigureCheck {
  name: string;
  /** The figure as shown, e.g. '0.31× (41 / 132 events/s)'; undefined when not measured. */
  shown: string | undefined;
  /** The target as shown, e.g. '≥ 0.5× the floor'. */
  limit: string;
  /** Undefined for a figure the issue asks for without a limit. */
  pass?: boolean;
}

/** Targets that are not a per-function ratio or a request count: one line each, pass or FAIL beside the figure. */
export function renderFigureChecks(checks: readonly FigureCheck[]): string[] {
  return [
    '| Target | Measured | Limit | |',
    '|---|---|---|---|',
    ...checks.map((check) => `| ${check.name} | ${check.shown ?? '–'} | ${check.limit} | ${check.shown === undefined ? 'not measured' : check.pass === undefined ? 'no limit' : verdict(check.pass)} |`),
  ];
}

export function renderCountChecks(checks: readonly CountCheck[]): string[] {
  return [
    '| Target | DynamoDB requests per call (median) | Limit | |',
    '|---|---|---|---|',
    ...checks.map(
      (check) => `| ${check.name} | ${check.measured ?? '–'} | ≤ ${check.limit} | ${check.measured === undefined ? 'not measured' : verdict(check.measured <= check.limit)} |`,
    ),
  ];
}
