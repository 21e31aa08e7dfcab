import type { Node } from 'constructs';

/**
 * Deployment parameters, read once from CDK context (cdk.json, or `-c key=value` on the command
 * line) and validated here, so a typo fails `cdk synth` instead of producing a half-configured stack.
 */
export interface StackConfig {
  /** Names the stack and the API Gateway stage. Routes already start with /v1, so the stage is not a version. */
  stage: string;
  /**
   * Browser origins allowed to call the edge API. Empty means no browser may call it cross-origin:
   * no preflight is answered, so browsers block the request (server-to-server calls still work).
   */
  corsOrigins: string[];
  /** Where alarms notify; consumed by the alarms construct (issue 9). Absent means no subscription. */
  alarmEmail?: string;
  /**
   * Whether this stack sets the region's API Gateway CloudWatch role (an account-wide singleton that
   * access logging needs). Turn it off for a second stage deployed to the same account and region.
   */
  apiGatewayCloudWatchRole: boolean;
}

const STAGE_PATTERN = /^[A-Za-z][A-Za-z0-9-]{0,39}$/;

function text(node: Node, key: string): string | undefined {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new Error(`Context '${key}' must be a string, got ${JSON.stringify(value)}`);
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

function flag(node: Node, key: string, fallback: boolean): boolean {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined) return fallback;
  // `-c key=false` arrives as a string.
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new Error(`Context '${key}' must be true or false, got ${JSON.stringify(value)}`);
}

/** Accepts a comma-separated string (command line) or an array (cdk.json). */
function origins(node: Node): string[] {
  const value: unknown = node.tryGetContext('corsOrigins');
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : value == null ? [] : undefined;
  if (!list) throw new Error(`Context 'corsOrigins' must be a comma-separated string or an array, got ${JSON.stringify(value)}`);
  const entries = list.map((entry) => String(entry).trim()).filter((entry) => entry !== '');
  for (const entry of entries) {
    if (entry === '*') {
      if (entries.length > 1) throw new Error(`Context 'corsOrigins': '*' cannot be combined with other origins`);
      continue;
    }
    // An origin is scheme://host[:port], nothing after: browsers compare it byte for byte.
    const parsed = URL.canParse(entry) ? new URL(entry) : undefined;
    if (!parsed || parsed.origin !== entry) {
      throw new Error(`Context 'corsOrigins': '${entry}' is not an origin like https://app.example.com`);
    }
  }
  return entries;
}

export function readStackConfig(node: Node): StackConfig {
  const stage = text(node, 'stage') ?? 'prod';
  if (!STAGE_PATTERN.test(stage)) throw new Error(`Context 'stage' must be letters, digits and '-', starting with a letter; got '${stage}'`);
  const alarmEmail = text(node, 'alarmEmail');
  if (alarmEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(alarmEmail)) {
    throw new Error(`Context 'alarmEmail' is not an email address: '${alarmEmail}'`);
  }
  return {
    stage,
    corsOrigins: origins(node),
    ...(alarmEmail === undefined ? {} : { alarmEmail }),
    apiGatewayCloudWatchRole: flag(node, 'apiGatewayCloudWatchRole', true),
  };
}
