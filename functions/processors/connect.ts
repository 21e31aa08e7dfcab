import * as z from '#shared/zod';
import { connectProcessor } from '#shared/domain/processor-setup';
import { restHandler } from '#shared/http/rest-handler';
import { parseInput } from '#shared/http/parse';
import { ok } from '#shared/http/responses';
import { processorConnectionResource } from '#shared/representations/processor-connection';
import type { ProcessorCredentials } from '#shared/store/processor-connections';

const params = z.strictObject({
  psp: z.string().regex(/^[a-z][a-z0-9_-]{1,31}$/, { error: 'must be a processor name: lowercase letters, digits, - and _' }),
});
const secret = z.string().trim().min(16, { error: 'must be at least 16 characters' }).max(512);

const stripe = z
  .strictObject({
    webhook_secret: z.string().regex(/^whsec_\w+$/, { error: "must be the endpoint's signing secret (whsec_...)" }),
    api_key: z.string().regex(/^(sk|rk)_(live|test)_\w+$/, { error: 'must be a secret or restricted key (sk_... or rk_...)' }).optional(),
  })
  .meta({ title: 'Stripe credentials', description: 'When psp is stripe.' });
const braintree = z
  .strictObject({
    merchant_id: z.string().trim().min(1),
    public_key: z.string().trim().min(1),
    private_key: z.string().trim().min(1),
    merchant_account_id: z.string().trim().min(1).optional(),
  })
  .meta({ title: 'Braintree credentials', description: 'When psp is braintree.' });
const generic = z.strictObject({ webhook_secret: secret }).meta({ title: 'Generic credentials', description: 'Any other psp.' });

function credentialsFor(psp: string, body: unknown): ProcessorCredentials {
  if (psp === 'stripe') {
    const input = parseInput(stripe, body, 'body');
    return { kind: 'stripe', webhookSecret: input.webhook_secret, apiKey: input.api_key ?? null };
  }
  if (psp === 'braintree') {
    const input = parseInput(braintree, body, 'body');
    return {
      kind: 'braintree',
      merchantId: input.merchant_id,
      publicKey: input.public_key,
      privateKey: input.private_key,
      merchantAccountId: input.merchant_account_id ?? null,
    };
  }
  return { kind: 'generic', webhookSecret: parseInput(generic, body, 'body').webhook_secret };
}

/** PUT /v1/processors/{psp}: connect a processor for the key's environment; returns the webhook URL to configure there. */
export const handler = restHandler({ params, body: z.looseObject({}), bodyVariants: [stripe, braintree, generic] }, async ({ auth, params, body, now, baseUrl }) => {
  const connection = await connectProcessor(auth.tenant, params.psp, credentialsFor(params.psp, body), now);
  return ok(processorConnectionResource(connection, baseUrl));
});
