import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Structured JSON logs, one object per line, with the request's context on every line. Personal data
 * (emails, names) is never passed here; ids are enough to trace a request.
 */
type Fields = Record<string, unknown>;

/** Lambda runs one request per process at a time; the local server serves many, each in its own scope. */
const scopes = new AsyncLocalStorage<Fields>();
let processContext: Fields = {};

export function withLogScope<T>(fn: () => Promise<T>): Promise<T> {
  return scopes.run({}, fn);
}

export function setLogContext(fields: Fields): void {
  const scope = scopes.getStore();
  if (scope) {
    for (const key of Object.keys(scope)) delete scope[key];
    Object.assign(scope, fields);
  } else {
    processContext = fields;
  }
}

const LEVELS = { info: 0, warn: 1, error: 2, silent: 3 } as const;
type Level = keyof typeof LEVELS;
/** LOG_LEVEL=warn (or error) quiets the per-request lines, e.g. in test runs. */
const threshold = LEVELS[(process.env.LOG_LEVEL as Level) ?? 'info'] ?? LEVELS.info;

function write(level: Exclude<Level, 'silent'>, message: string, fields: Fields): void {
  if (LEVELS[level] < threshold) return;
  const context = scopes.getStore() ?? processContext;
  const line = JSON.stringify({ level, time: new Date().toISOString(), message, ...context, ...fields });
  if (level === 'error') console.error(line);
  else console.log(line);
}

export const log = {
  info: (message: string, fields: Fields = {}) => write('info', message, fields),
  warn: (message: string, fields: Fields = {}) => write('warn', message, fields),
  error: (message: string, fields: Fields = {}) => write('error', message, fields),
};

export function describeError(error: unknown): Fields {
  if (error instanceof Error) return { error_name: error.name, error_message: error.message, stack: error.stack };
  return { error_message: String(error) };
}
