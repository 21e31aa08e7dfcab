import * as z from '#shared/zod';
import { keyVault } from '#shared/composition/key-vault';
import { connectProcessor } from '#shared/domain/ingestion/processor-setup';
import { restHandler } from '#shared/http/rest-handler';
import { parseInput } from '#shared/http/parse';
import { ok } from '#shared/http/responses';
import { apiBaseUrl } from '#shared/public-url';
import { processorConnectionResource } from '#shared/representations/processor-connection';
import type { ProcessorCredentials } from '#shared/model/processor-connection';

const params = z.strictObject({
  psp: z.string().regex(/^[a-z][a-z0-9_-]{1,31}$/, { error: 'must be a processor name: lowercase letters, digits, - and _' }),
});
/**
 * A credential is used exactly as sent (signatures are computed over its bytes), so surrounding
 * whitespace, most likely a paste slip, is refused rather than silently trimmed.
 */
const credential = (min: number, max: number) =>
  z
    .string()
    .min(min, { error: min > 1 ? `must be at least ${min} characters` : 'must not be empty' })
    .max(max)
    .regex(/^\S(?:[\s\S]*\S)?$/, { error: 'must not start or end with whitespace' });
const secret = credential(16, 512);

const stripe = z
  .strictObject({
    webhook_secret: z.string().regex(/^whsec_\w+$/, { error: "must be the endpoint's signing secret (whsec_...)" }),
    api_key: z.string().regex(/^(sk|rk)_(live|test)_\w+$/, { error: 'must be a secret or restricted key (sk_... or rk_...)' }).optional(),
  })
  .meta({ title: 'Stripe credentials', description: 'When psp is stripe.' });
const braintree = z
  .strictObject({
    merchant_id: credential(1, 255),
    public_key: credential(1, 255),
    private_key: credential(1, 255),
    merchant_account_id: credential(1, 255).optional(),
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
export const handler = restHandler({ params, body: z.looseObject({}), bodyVariants: [stripe, braintree, generic] }, async ({ auth, params, body, now }) => {
  const connection = await connectProcessor({ keyVault }, auth.tenant, params.psp, credentialsFor(params.psp, body), now);
  return ok(processorConnectionResource(connection, apiBaseUrl));
});
