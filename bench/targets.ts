/**
 * The targets of issues #9 and #26, as ratios to the floor measured in the same run and as DynamoDB
 * requests per call, and how the bench reports them: every function's ratios with pass or FAIL, worst
 * first. A function's init is held to its own floor (the floor bundle making that function's first
 * request's DynamoDB calls in the same rounds), its bundle to the floor's bundle.
 */
export const TARGETS = {
  /** A function's minified bundle, over the floor's. */
  bundleRatio: 1.25,
  /** A function's cold start (import and first request), over its floor's: the floor making the same DynamoDB calls in the same rounds. */
  initRatio: 1.25,
  /**
   * Ingested events per second through the local server, over the floor making the same DynamoDB
   * requests in the same run (at least): cold start's 1.25× as throughput (docs/decisions.md,
   * "Ingestion held to a floor making the same requests").
   */
  ingestionSameRequestsRatio: 0.8,
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
  /** Its own floor's init and init CPU (the floor making its calls); without them, the floor's. */
  floorInitMs?: number;
  floorInitCpuMs?: number;
}

export interface Ratio {
  value: number;
  /** The floor's figure it is divided by. */
  floor: number;
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
  return { value, floor, ratio, pass: ratio <= limit };
}

/** Each function against the floor, the worst ratio first (by the larger of its two). */
export function ratioRows(functions: readonly FunctionFigures[], floor: Omit<FunctionFigures, 'handler'>): RatioRow[] {
  const worst = (row: RatioRow) => Math.max(row.bundle?.ratio ?? 0, row.init?.ratio ?? 0);
  return functions
    .map((figures) => ({
      handler: figures.handler,
      bundle: ratioOf(figures.bytes, floor.bytes, TARGETS.bundleRatio),
      init: ratioOf(figures.initMs, figures.floorInitMs ?? floor.initMs, TARGETS.initRatio),
      initCpu: ratioOf(figures.initCpuMs, figures.floorInitCpuMs ?? floor.initCpuMs, TARGETS.initRatio),
    }))
    .sort((a, b) => worst(b) - worst(a) || a.handler.localeCompare(b.handler));
}

export const kilobytes = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;
const verdict = (pass: boolean) => (pass ? 'pass' : '**FAIL**');
const cell = (ratio: Ratio | undefined, show: (value: number) => string) =>
  ratio ? [show(ratio.value), `${ratio.ratio.toFixed(2)}× ${verdict(ratio.pass)}`] : ['–', '–'];
/** The figure, its floor's, and the ratio with its verdict. */
const floorCell = (ratio: Ratio | undefined) => (ratio ? [String(ratio.value), String(ratio.floor), `${ratio.ratio.toFixed(2)}× ${verdict(ratio.pass)}`] : ['–', '–', '–']);

/** How many functions meet a target, e.g. '3 of 49 functions pass'. */
export function passCount(rows: readonly RatioRow[], pick: (row: RatioRow) => Ratio | undefined): string {
  const measured = rows.map(pick).filter((ratio): ratio is Ratio => ratio !== undefined);
  return `${measured.filter((ratio) => ratio.pass).length} of ${measured.length} functions pass`;
}

/**
 * The markdown table: the floor first (its bundle is every function's measure; its one-read init is
 * shown for scale), then the functions (the first `limit` of them, worst first), each init beside its
 * own floor's.
 */
export function renderRatioTable(rows: readonly RatioRow[], floor: Omit<FunctionFigures, 'handler'>, limit = rows.length): string[] {
  const line = (name: string, cells: string[][]) => `| ${name} | ${cells.flat().join(' | ')} |`;
  const shown = (value: number | undefined, show: (value: number) => string = String) => (value === undefined ? '–' : show(value));
  return [
    `| Function | Bundle | × floor (≤ ${TARGETS.bundleRatio}) | Init ms | Its floor's | × its floor (≤ ${TARGETS.initRatio}) | Init CPU ms | Its floor's | × its floor |`,
    '|---|---|---|---|---|---|---|---|---|',
    line('**floor** (one read)', [[shown(floor.bytes, kilobytes), '1.00×'], [shown(floor.initMs), shown(floor.initMs), '1.00×'], [shown(floor.initCpuMs), shown(floor.initCpuMs), '1.00×']]),
    ...rows.slice(0, limit).map((row) => line(`\`${row.handler}\``, [cell(row.bundle, kilobytes), floorCell(row.init), floorCell(row.initCpu)])),
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
