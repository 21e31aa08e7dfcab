import { AsyncLocalStorage } from 'node:async_hooks';
import { sourceMappedStack } from './source-mapped-stack.ts';

/**
 * Structured JSON logs, one object per line, with the request's context on every line: request_id
 * and route (an HTTP route, or `job <kind>`, `stream events`, `queue <name>`), and merchant_id once
 * it is known. Personal data (emails, names, phone numbers) is never passed here; ids are enough to
 * trace a request. Outside services do quote it in their errors (SES names the rejected recipient),
 * so every line is scrubbed of email addresses and phone numbers before it is written.
 */
type Fields = Record<string, unknown>;

/** Lambda runs one request per process at a time; the local server serves many, each in its own scope. */
const scopes = new AsyncLocalStorage<Fields>();
let processContext: Fields = {};

export function withLogScope<T>(fn: () => Promise<T>): Promise<T> {
  return scopes.run({}, fn);
}

/** Starts a new context (a new request, job or record): what the previous one set is dropped. */
export function setLogContext(fields: Fields): void {
  const scope = scopes.getStore();
  if (scope) {
    for (const key of Object.keys(scope)) delete scope[key];
    Object.assign(scope, fields);
  } else {
    processContext = fields;
  }
}

/** Adds to the current context what a request learns on the way, such as the merchant a webhook belongs to. */
export function addLogContext(fields: Fields): void {
  Object.assign(scopes.getStore() ?? processContext, fields);
}

/** The current context, for other structured lines (metrics) that should be traceable the same way. */
export function currentLogContext(): Readonly<Fields> {
  return { ...(scopes.getStore() ?? processContext) };
}

const LEVELS = { debug: 0, info: 1, warn: 2, error: 3, silent: 4 } as const;
type Level = keyof typeof LEVELS;
/** LOG_LEVEL=warn (or error) quiets the per-request lines, e.g. in test runs; debug adds metric lines locally. */
const threshold = LEVELS[(process.env.LOG_LEVEL as Level) ?? 'info'] ?? LEVELS.info;

export function logLevelEnabled(level: Exclude<Level, 'silent'>): boolean {
  return LEVELS[level] >= threshold;
}

/** No slash in either part, so module paths in stack traces (`node_modules/@aws-sdk/...`) are left alone. */
const EMAIL = /[^\s"'<>()[\]{},;:@/]+@[^\s"'<>()[\]{},;:@/]+\.[A-Za-z]{2,}/g;
/** International numbers as processors and SMS providers write them: a plus, then 7 to 15 digits, maybe spaced or dotted. */
const PHONE = /\+\d(?:[\s.()-]?\d){6,14}/g;

export function scrubPersonalData(text: string): string {
  return text.replace(EMAIL, '[email]').replace(PHONE, '[phone]');
}

/**
 * Stripe's secret and restricted keys and webhook signing secrets, by their prefixes. Credentials are
 * never passed here (they are opened only where used); this catches one quoted by mistake, in an
 * error from anywhere. Other processors' secrets have no recognisable form.
 */
const STRIPE_SECRET = /\b(?:(?:sk|rk)_(?:live|test)|whsec)_[A-Za-z0-9]+/g;

export function scrubSecrets(text: string): string {
  return text.replace(STRIPE_SECRET, '[secret]');
}

/**
 * Straight to the process's streams (errors to stderr), as the metric lines are (shared/metrics.ts),
 * not through console: in its text log format Lambda's console puts a timestamp, the request id and
 * a level before each line, and CloudWatch Logs Insights and JSON filter patterns see the fields only
 * of a line that is JSON as a whole. It also spares the first request console's lazily loaded formatting.
 */
function write(level: Exclude<Level, 'silent' | 'debug'>, message: string, fields: Fields): void {
  if (!logLevelEnabled(level)) return;
  const context = scopes.getStore() ?? processContext;
  const line = scrubSecrets(scrubPersonalData(JSON.stringify({ level, time: new Date().toISOString(), message, ...context, ...fields })));
  (level === 'error' ? process.stderr : process.stdout).write(`${line}\n`);
}

export const log = {
  info: (message: string, fields: Fields = {}) => write('info', message, fields),
  warn: (message: string, fields: Fields = {}) => write('warn', message, fields),
  error: (message: string, fields: Fields = {}) => write('error', message, fields),
};

export function describeError(error: unknown): Fields {
  if (error instanceof Error) return { error_name: error.name, error_message: error.message, stack: error.stack && sourceMappedStack(error.stack) };
  return { error_message: String(error) };
}
