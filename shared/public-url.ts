import { requireEnv } from './config.ts';

/**
 * Where the merchant API and the processor webhooks are reached from outside, as configured: CDK
 * sets API_BASE_URL from the custom domain or the stage's execute-api URL, `npm start` from the
 * address it listens on. URLs the service hands out (a processor's webhook URL) are built from this,
 * never from a request's Host or X-Forwarded-Proto, which whoever sends the request chooses.
 */
function configuredBaseUrl(): string {
  const value = requireEnv('API_BASE_URL');
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
    throw new Error(`Invalid configuration: API_BASE_URL must be an absolute http(s) URL, got '${value}'`);
  }
  return value.replace(/\/+$/, '');
}

export const apiBaseUrl: string = configuredBaseUrl();
