import { join } from 'node:path';
import { build } from 'esbuild';
import { LAMBDA_ESBUILD_OPTIONS, RUNTIME_SDK_EXTERNALS } from '../../lib/bundling.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * The source files each handler module's bundle holds, by entry point (`functions/<handler>.ts`),
 * bundled in one esbuild run with the options the stack deploys with (lib/bundling.ts). The SDK is
 * left out only to save time: what a test looks for is our own modules.
 */
export async function bundledInputs(handlers: readonly string[]): Promise<Map<string, string[]>> {
  const { metafile } = await build({
    ...LAMBDA_ESBUILD_OPTIONS,
    absWorkingDir: ROOT,
    entryPoints: [...new Set(handlers.map((handler) => `functions/${handler}.ts`))],
    write: false,
    outdir: 'out',
    metafile: true,
    logLevel: 'silent',
    external: [...RUNTIME_SDK_EXTERNALS],
  });
  const inputs = new Map<string, string[]>();
  for (const output of Object.values(metafile.outputs)) {
    if (output.entryPoint !== undefined) inputs.set(output.entryPoint, Object.keys(output.inputs));
  }
  return inputs;
}
