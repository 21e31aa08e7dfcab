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
  /** Names of the operator's own for the APIs; absent, they are reached at their execute-api URLs only. */
  customDomain?: CustomDomainConfig;
}

export interface CustomDomainConfig {
  /** The merchant REST API and webhooks, e.g. api.example.com. */
  domainName: string;
  /** The edge API (cancel widget), e.g. cancel.example.com; absent, it keeps only its execute-api URL. */
  edgeDomainName?: string;
  /** ACM certificate in the stack's region covering both names. */
  certificateArn: string;
  /** Route 53 hosted zone to create the alias records in; absent, the records are the operator's to create. */
  hostedZoneId?: string;
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

const DOMAIN_PATTERN = /^(?=.{4,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const CERTIFICATE_PATTERN = /^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[0-9a-f-]+$/;
const HOSTED_ZONE_PATTERN = /^Z[A-Z0-9]{1,31}$/;

function matching(node: Node, key: string, pattern: RegExp, what: string): string | undefined {
  const value = text(node, key);
  if (value !== undefined && !pattern.test(value)) throw new Error(`Context '${key}' is not ${what}: '${value}'`);
  return value;
}

/** All or nothing: a name without its certificate (or the reverse) cannot be deployed. */
function customDomain(node: Node): CustomDomainConfig | undefined {
  const domainName = matching(node, 'domainName', DOMAIN_PATTERN, 'a lowercase domain name like api.example.com');
  const edgeDomainName = matching(node, 'edgeDomainName', DOMAIN_PATTERN, 'a lowercase domain name like cancel.example.com');
  const certificateArn = matching(node, 'certificateArn', CERTIFICATE_PATTERN, 'an ACM certificate ARN');
  const hostedZoneId = matching(node, 'hostedZoneId', HOSTED_ZONE_PATTERN, 'a Route 53 hosted zone id like Z0123456789ABCDEFGHIJ');
  if (domainName === undefined || certificateArn === undefined) {
    const given = Object.entries({ domainName, edgeDomainName, certificateArn, hostedZoneId }).filter(([, value]) => value !== undefined);
    if (given.length > 0) throw new Error(`Context ${given.map(([key]) => `'${key}'`).join(', ')} needs both 'domainName' and 'certificateArn'`);
    return undefined;
  }
  if (edgeDomainName === domainName) throw new Error(`Context 'edgeDomainName' must differ from 'domainName': each API needs its own name`);
  return {
    domainName,
    ...(edgeDomainName === undefined ? {} : { edgeDomainName }),
    certificateArn,
    ...(hostedZoneId === undefined ? {} : { hostedZoneId }),
  };
}

export function readStackConfig(node: Node): StackConfig {
  const stage = text(node, 'stage') ?? 'prod';
  if (!STAGE_PATTERN.test(stage)) throw new Error(`Context 'stage' must be letters, digits and '-', starting with a letter; got '${stage}'`);
  const alarmEmail = text(node, 'alarmEmail');
  if (alarmEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(alarmEmail)) {
    throw new Error(`Context 'alarmEmail' is not an email address: '${alarmEmail}'`);
  }
  const domain = customDomain(node);
  return {
    stage,
    corsOrigins: origins(node),
    ...(alarmEmail === undefined ? {} : { alarmEmail }),
    apiGatewayCloudWatchRole: flag(node, 'apiGatewayCloudWatchRole', true),
    ...(domain === undefined ? {} : { customDomain: domain }),
  };
}
