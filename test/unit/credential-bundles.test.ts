import { describe, expect, it } from 'vitest';
import { lambdaEntries } from '../../bench/entries.ts';
import { bundledInputs } from '../support/handler-bundles.ts';

/** The module that builds the KMS client: a function bundling it also pays for the client. */
const KEY_VAULT = 'shared/composition/key-vault.ts';

describe('Lambda bundles and the credentials key', () => {
  it('bundles the KMS key vault only into the functions that seal or open processor credentials', async () => {
    // Prepare: every function the stack deploys, bundled as it does (the SDK left out only to save time here)
    const handlers = [...new Set(lambdaEntries().map((entry) => entry.handler))];
    // Act
    const bundles = await bundledInputs(handlers);
    // Assess
    expect(bundles.size).toBe(handlers.length);
    const withKeyVault = [...bundles].filter(([, inputs]) => inputs.includes(KEY_VAULT)).map(([entryPoint]) => entryPoint);
    expect(withKeyVault.sort()).toEqual(
      [
        'card-updates/page',
        'card-updates/stripe-return',
        'card-updates/submit',
        'jobs/payment-retry',
        'processors/connect',
        'streams/events',
        'webhooks/braintree',
        'webhooks/generic',
        'webhooks/stripe',
      ].map((handler) => `functions/${handler}.ts`),
    );
  }, 180_000);
});
