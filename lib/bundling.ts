import type { BuildOptions } from 'esbuild';

/**
 * The bundle is ESM, but some dependencies (the AWS SDK's CommonJS parts) call `require`, which ESM
 * does not define; this gives them one. The alias avoids clashing with a bundled `createRequire`.
 */
export const REQUIRE_SHIM = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/**
 * How every Lambda is bundled. RouteFunction hands these to NodejsFunction and the bundle benchmark
 * (bench/bundles.ts) gives them to esbuild itself, so what is measured is what is deployed.
 * Source maps are the construct's business: they ship beside the bundle, not in it.
 */
export const LAMBDA_BUNDLING = {
  format: 'esm',
  target: 'node22',
  mainFields: ['module', 'main'],
  minify: true,
  banner: REQUIRE_SHIM,
} as const;

/**
 * What NodejsFunction leaves out of the bundle when the SDK is taken from the Lambda runtime
 * (`bundleAwsSDK: false`; cdk.json's sdkV3ExcludeSmithyPackages adds `@smithy/*`). The functions
 * bundle the SDK; the benchmark measures this alternative (docs/decisions.md, "Bundles and cold start").
 */
export const RUNTIME_SDK_EXTERNALS = ['@aws-sdk/*', '@smithy/*'] as const;

/** The esbuild options NodejsFunction's command line amounts to for one entry (`esbuild --bundle entry ...`). */
export function lambdaBuildOptions(entry: string, outfile: string): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: LAMBDA_BUNDLING.format,
    target: LAMBDA_BUNDLING.target,
    mainFields: [...LAMBDA_BUNDLING.mainFields],
    minify: LAMBDA_BUNDLING.minify,
    banner: { js: LAMBDA_BUNDLING.banner },
  };
}
