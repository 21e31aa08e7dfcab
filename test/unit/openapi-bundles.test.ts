import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../shared/routes.ts';
import { bundledInputs } from '../support/handler-bundles.ts';

/** Modules that only the API description and tests may load: response schemas and the document builder. */
const DESCRIPTION_ONLY = /^shared\/(openapi|representations\/schemas)\//;

describe('Lambda bundles and the API description', () => {
  it('no route function bundles the document builder or a response schema', async () => {
    // Prepare: every route's handler, bundled as the stack does (the SDK left out only to save time here).
    const handlers = [...new Set(ROUTES.map((route) => route.handler))];

    // Act
    const bundles = await bundledInputs(handlers);

    // Assess
    expect(bundles.size).toBe(handlers.length);
    for (const [entryPoint, inputs] of bundles) {
      expect(inputs, entryPoint).toContain(entryPoint);
      expect(inputs.filter((input) => DESCRIPTION_ONLY.test(input)), entryPoint).toEqual([]);
    }
  }, 120_000);
});
