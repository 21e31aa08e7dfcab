import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../shared/routes.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** Modules that only the API description and tests may load: response schemas and the document builder. */
const DESCRIPTION_ONLY = /^shared\/(openapi|representations\/schemas)\//;

describe('Lambda bundles and the API description', () => {
  it('no route function bundles the document builder or a response schema', async () => {
    // Prepare: every route's handler, bundled as the stack does (the SDK left out only to save time here).
    const entryPoints = [...new Set(ROUTES.map((route) => `functions/${route.handler}.ts`))];

    // Act
    const { metafile } = await build({
      absWorkingDir: ROOT,
      entryPoints,
      bundle: true,
      write: false,
      outdir: 'out',
      platform: 'node',
      format: 'esm',
      metafile: true,
      logLevel: 'silent',
      external: ['@aws-sdk/*', '@smithy/*'],
    });

    // Assess
    const outputs = Object.values(metafile.outputs).filter((output) => output.entryPoint !== undefined);
    expect(outputs).toHaveLength(entryPoints.length);
    for (const output of outputs) {
      const inputs = Object.keys(output.inputs);
      expect(inputs, output.entryPoint).toContain(output.entryPoint);
      expect(inputs.filter((input) => DESCRIPTION_ONLY.test(input)), output.entryPoint).toEqual([]);
    }
  }, 120_000);
});
