import { optionalEnv } from '../config.ts';
import { isRegisteredOrigin } from '../store/cors-origins.ts';
import { isWebOrigin } from '../model/web-origin.ts';

/**
 * Which browser origins may call the edge API (the cancel widget on merchants' pages). Two sources:
 * the deployment's CORS_ORIGINS (comma-separated, or `*`; set by the CDK stack from the `corsOrigins`
 * context, read at cold start), allowed for every merchant; and each merchant's own list on its
 * active cancel flow (`allowed_origins`), allowed for that merchant's sessions only.
 */
const deploymentOrigins: readonly string[] = (optionalEnv('CORS_ORIGINS') ?? '')
  .split(',')
  .map((origin) => origin.trim())
  .filter((origin) => origin !== '');

export function allowedByDeployment(origin: string, configured: readonly string[] = deploymentOrigins): boolean {
  return configured.includes('*') || configured.includes(origin);
}

/** For a response about one merchant's session: the deployment's origins or that merchant's. */
export function originAllowedFor(origin: string, merchantOrigins: readonly string[]): boolean {
  return allowedByDeployment(origin) || merchantOrigins.includes(origin);
}

/**
 * When the merchant is not known (a preflight, which has no body; an error before the session was
 * found): allowed if the deployment or any merchant's active flow allows it. Such answers say nothing
 * about a merchant, and the response that does (start's token) is checked against that merchant.
 */
export async function originAllowedForSomeMerchant(origin: string): Promise<boolean> {
  if (allowedByDeployment(origin)) return true;
  return isWebOrigin(origin) && (await isRegisteredOrigin(origin));
}
