/**
 * CloudWatch Embedded Metric Format: one JSON object per log line from which CloudWatch Logs
 * extracts metrics (no PutMetricData call, no library). `_aws` holds the metadata: the timestamp in
 * epoch milliseconds and one MetricDirective per metric set, naming the root members that are its
 * dimensions (strings) and its metric values (numbers). Any other root member is a property: kept in
 * the log, searchable in Logs Insights, never a metric, so it may carry ids such as the merchant's.
 */
export type MetricUnit = 'Count' | 'Seconds' | 'None';

export interface MetricSet {
  /** Dimension name → value. Every distinct combination is a metric billed on its own: low-cardinality values only. */
  dimensions: Record<string, string>;
  /** Metric name → its value in this line. */
  values: Record<string, { value: number; unit: MetricUnit }>;
}

export interface MetricLine {
  namespace: string;
  /** When it happened, in epoch milliseconds. */
  timestamp: number;
  sets: readonly MetricSet[];
  properties?: Record<string, unknown>;
}

/** Limits of the specification: at most 30 dimensions per set and 100 metrics per directive. */
const MAX_DIMENSIONS = 30;
const MAX_METRICS = 100;

/** Sets of one line share the root object, so a name may appear in two sets only with the same value. */
function mergeMember(root: Record<string, unknown>, name: string, value: string | number): void {
  if (name === '_aws') throw new Error("'_aws' is reserved for the metric metadata");
  if (name in root && root[name] !== value) throw new Error(`Metric member '${name}' has two values in one line`);
  root[name] = value;
}

export function emfDocument(line: MetricLine): Record<string, unknown> {
  const members: Record<string, unknown> = {};
  const directives = line.sets.map((set) => {
    const dimensionNames = Object.keys(set.dimensions);
    const metricNames = Object.keys(set.values);
    if (dimensionNames.length > MAX_DIMENSIONS) throw new Error(`A metric set has ${dimensionNames.length} dimensions; at most ${MAX_DIMENSIONS} are allowed`);
    if (metricNames.length === 0 || metricNames.length > MAX_METRICS) throw new Error(`A metric set needs 1 to ${MAX_METRICS} metrics`);
    for (const [name, value] of Object.entries(set.dimensions)) {
      if (value.trim() === '') throw new Error(`Dimension '${name}' is empty`);
      mergeMember(members, name, value);
    }
    for (const [name, { value }] of Object.entries(set.values)) {
      if (!Number.isFinite(value)) throw new Error(`Metric '${name}' is not a finite number`);
      mergeMember(members, name, value);
    }
    return {
      Namespace: line.namespace,
      Dimensions: [dimensionNames],
      Metrics: Object.entries(set.values).map(([name, { unit }]) => ({ Name: name, Unit: unit })),
    };
  });
  // A property named like the metadata, a dimension or a metric must never change what is measured.
  const { _aws: _reserved, ...properties } = line.properties ?? {};
  return { _aws: { Timestamp: line.timestamp, CloudWatchMetrics: directives }, ...properties, ...members };
}

export function emfLine(line: MetricLine): string {
  return JSON.stringify(emfDocument(line));
}
