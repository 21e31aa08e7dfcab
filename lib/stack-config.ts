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
  /** Dunning email through SES; absent, email steps send nothing and are recorded as `channel_unavailable`. */
  email?: EmailChannelConfig;
  /** Dunning sms through AWS End User Messaging; absent, sms steps are recorded as `channel_unavailable`. */
  sms?: SmsChannelConfig;
}

export interface EmailChannelConfig {
  /** The From address as sent: `billing@example.com` or `Acme Billing <billing@example.com>`. */
  from: string;
  /** The verified SES identity covering it (the address itself or its domain), which SES authorizes the send against. */
  identity: string;
  configurationSet?: string;
}

/** What sms goes out from: an ARN as given (possibly a resource shared from another account), or an id in the stack's account and region. */
export type SmsOrigination = { arn: string } | { resourceType: 'phone-number' | 'pool'; id: string };

export interface SmsChannelConfig {
  originationIdentity: SmsOrigination;
  configurationSet?: string;
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

/** Keys that only mean something beside `primary`: naming them without it is a mistake, not a default. */
function onlyWith(primary: string, dependents: Record<string, unknown>): void {
  const given = Object.entries(dependents).filter(([, value]) => value !== undefined);
  if (given.length > 0) throw new Error(`Context ${given.map(([key]) => `'${key}'`).join(', ')} needs '${primary}'`);
}

const EMAIL_PATTERN = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@([A-Za-z0-9.-]+)$/;
/** SES and End User Messaging configuration set names alike. */
const CONFIGURATION_SET_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** The address in `billing@example.com` or `Acme Billing <billing@example.com>`, with its (lowercased) domain. */
function emailAddress(key: string, value: string): { address: string; domain: string } {
  const address = /^[^<>\r\n]*<([^<>]+)>$/.exec(value)?.[1] ?? value;
  const domain = EMAIL_PATTERN.exec(address)?.[1]?.toLowerCase();
  if (domain === undefined || !DOMAIN_PATTERN.test(domain)) {
    throw new Error(`Context '${key}' is not an email address like billing@example.com or 'Acme Billing <billing@example.com>': '${value}'`);
  }
  return { address, domain };
}

/**
 * The sender and the identity IAM grants: SES sends from a verified address, or from any address at a
 * verified domain (or a subdomain of it), and authorizes the send against that identity's ARN.
 */
function emailChannel(node: Node): EmailChannelConfig | undefined {
  const from = text(node, 'mailFrom');
  const identity = text(node, 'mailIdentity');
  const configurationSet = matching(node, 'mailConfigurationSet', CONFIGURATION_SET_PATTERN, 'an SES configuration set name (letters, digits, - and _)');
  if (from === undefined) {
    onlyWith('mailFrom', { mailIdentity: identity, mailConfigurationSet: configurationSet });
    return undefined;
  }
  const sender = emailAddress('mailFrom', from);
  if (identity !== undefined && !identity.includes('@') && !DOMAIN_PATTERN.test(identity)) {
    throw new Error(`Context 'mailIdentity' is not a verified SES identity (a lowercase domain like example.com, or an email address): '${identity}'`);
  }
  const covers =
    identity === undefined ||
    (identity.includes('@')
      ? emailAddress('mailIdentity', identity).address.toLowerCase() === sender.address.toLowerCase()
      : sender.domain === identity || sender.domain.endsWith(`.${identity}`));
  if (!covers) throw new Error(`Context 'mailIdentity' (${identity}) does not cover the mailFrom address ${sender.address}: SES sends only from a verified address or domain`);
  return { from, identity: identity ?? sender.domain, ...(configurationSet === undefined ? {} : { configurationSet }) };
}

const SMS_ARN_PATTERN = /^arn:aws[a-z-]*:sms-voice:[a-z0-9-]+:\d{12}:(phone-number\/phone-[0-9a-f]+|pool\/pool-[0-9a-f]+|sender-id\/[A-Za-z0-9_-]{1,11}\/[A-Z]{2})$/;
const SMS_ID_PATTERN = /^(phone|pool)-[0-9a-f]+$/;

/**
 * Only forms IAM can name exactly: a phone number or pool by id or ARN, a sender ID by ARN (its ARN
 * carries the country it is registered for, which the bare sender ID does not). A phone number in
 * E.164 form would work for sending, but no grant can name it.
 */
function smsOrigination(value: string): SmsOrigination {
  if (SMS_ARN_PATTERN.test(value)) return { arn: value };
  const id = SMS_ID_PATTERN.exec(value);
  if (id) return { resourceType: id[1] === 'phone' ? 'phone-number' : 'pool', id: value };
  if (value.startsWith('+')) {
    throw new Error(`Context 'smsOriginationIdentity' is a phone number; give its id (phone-…) or ARN, which IAM can grant (aws pinpoint-sms-voice-v2 describe-phone-numbers lists them): '${value}'`);
  }
  throw new Error(
    `Context 'smsOriginationIdentity' is not a phone number id (phone-…), a pool id (pool-…), or the ARN of a phone number, pool or sender ID (arn:aws:sms-voice:<region>:<account>:sender-id/<SenderId>/<country>; a sender ID is given by its ARN): '${value}'`,
  );
}

function smsChannel(node: Node): SmsChannelConfig | undefined {
  const originationIdentity = text(node, 'smsOriginationIdentity');
  const configurationSet = matching(node, 'smsConfigurationSet', CONFIGURATION_SET_PATTERN, 'an End User Messaging configuration set name (letters, digits, - and _)');
  if (originationIdentity === undefined) {
    onlyWith('smsOriginationIdentity', { smsConfigurationSet: configurationSet });
    return undefined;
  }
  return { originationIdentity: smsOrigination(originationIdentity), ...(configurationSet === undefined ? {} : { configurationSet }) };
}

export function readStackConfig(node: Node): StackConfig {
  const stage = text(node, 'stage') ?? 'prod';
  if (!STAGE_PATTERN.test(stage)) throw new Error(`Context 'stage' must be letters, digits and '-', starting with a letter; got '${stage}'`);
  const alarmEmail = text(node, 'alarmEmail');
  if (alarmEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(alarmEmail)) {
    throw new Error(`Context 'alarmEmail' is not an email address: '${alarmEmail}'`);
  }
  const domain = customDomain(node);
  const email = emailChannel(node);
  const sms = smsChannel(node);
  return {
    stage,
    corsOrigins: origins(node),
    ...(alarmEmail === undefined ? {} : { alarmEmail }),
    apiGatewayCloudWatchRole: flag(node, 'apiGatewayCloudWatchRole', true),
    ...(domain === undefined ? {} : { customDomain: domain }),
    ...(email === undefined ? {} : { email }),
    ...(sms === undefined ? {} : { sms }),
  };
}
