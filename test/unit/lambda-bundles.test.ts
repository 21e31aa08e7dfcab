import { beforeAll, describe, expect, it } from 'vitest';
import { lambdaEntries } from '../../bench/entries.ts';
import { ROUTES } from '../../shared/routes.ts';
import { bundledInputs } from '../support/handler-bundles.ts';

/** Modules that only the API description and tests may load: response schemas and the document builder. */
const DESCRIPTION_ONLY = /^shared\/(openapi|representations\/schemas)\//;
/** The local server's and the tests' stand-ins for outside services, and the local server itself. */
const LOCAL_ONLY = /^(shared\/adapters\/local|bin)\//;

let bundles: Map<string, string[]>;
const handlers = [...new Set(lambdaEntries().map((entry) => entry.handler))];

beforeAll(async () => {
  // Every function the stack deploys, bundled as the stack bundles it (the SDK left out only to save time here).
  bundles = await bundledInputs(handlers);
}, 180_000);

describe('Lambda bundles', () => {
  it('hold every function the stack deploys', () => {
    expect(bundles.size).toBe(handlers.length);
    for (const [entryPoint, inputs] of bundles) expect(inputs, entryPoint).toContain(entryPoint);
  });

  it('never hold a local stand-in: shared/composition picks AWS unless the local runtime installs its own', () => {
    for (const [entryPoint, inputs] of bundles) {
      expect(inputs.filter((input) => LOCAL_ONLY.test(input)), entryPoint).toEqual([]);
    }
  });

  it('of routes never hold the document builder or a response schema', () => {
    for (const route of ROUTES) {
      const inputs = bundles.get(`functions/${route.handler}.ts`)!;
      expect(inputs.filter((input) => DESCRIPTION_ONLY.test(input)), route.handler).toEqual([]);
    }
  });
});
