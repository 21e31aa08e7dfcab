import { ServiceError } from '../model/errors.ts';
import { ipAllowed } from '../domain/access/ip-allowlist.ts';
import { requireAuth, sourceIpOf, type ServiceMiddleware } from './context.ts';

/**
 * §5 rule 5. Checked before the rate limit on purpose: requests from outside the allowlist (a leaked
 * key used elsewhere) must not consume the merchant's request budget.
 */
export function enforceIpAllowlist(): ServiceMiddleware {
  return {
    before: (request) => {
      const { settings } = requireAuth(request.context);
      const sourceIp = sourceIpOf(request.event);
      if (!ipAllowed(settings.ipAllowlist, sourceIp)) {
        throw new ServiceError('ip_not_allowed', `Requests from ${sourceIp ?? 'this address'} are not allowed for this account.`);
      }
    },
  };
}
