import type { BuildOptions } from 'esbuild';

/**
 * The bundle is ESM, but some dependencies (the AWS SDK's CommonJS parts) call `require`, which ESM
 * does not define; this gives them one. The alias avoids clashing with a bundled `createRequire`.
 */
export const REQUIRE_SHIM = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/**
 * How every Lambda is bundled. RouteFunction hands these to NodejsFunction and the bundle benchmark
 * (bench/bundles.ts) gives them to esbuild itself, so what is measured is what is deployed.
 * The source map ships beside the bundle (`index.mjs.map`, mappings only: the sources would only make
 * the package bigger); Node does not load it, the log reads it when an unexpected error needs its
 * stack (shared/source-mapped-stack.ts; docs/decisions.md, "Bundles and cold start: import work").
 */
export const LAMBDA_BUNDLING = {
  format: 'esm',
  target: 'node22',
  mainFields: ['module', 'main'],
  minify: true,
  banner: REQUIRE_SHIM,
  sourceMap: true,
  sourcesContent: false,
} as const;

/**
 * The environment every function gets whatever it does, from RouteFunction; the cold-start bench
 * starts its processes with the same. No NODE_OPTIONS: `--enable-source-maps` made Node read and
 * parse the whole source map at every cold start (docs/decisions.md,
 * "Bundles and cold start: import work").
 */
export function lambdaEnvironment(configuration: { tableName: string; metricsNamespace: string }): Record<string, string> {
  return { TABLE_NAME: configuration.tableName, METRICS_NAMESPACE: configuration.metricsNamespace };
}

/**
 * What NodejsFunction leaves out of the bundle when the SDK is taken from the Lambda runtime
 * (`bundleAwsSDK: false`; cdk.json's sdkV3ExcludeSmithyPackages adds `@smithy/*`). The functions
 * bundle the SDK; the benchmark measures this alternative
 * (docs/decisions.md, "Cold start held to a floor making the same calls").
 */
export const RUNTIME_SDK_EXTERNALS = ['@aws-sdk/*', '@smithy/*'] as const;

/** The esbuild options NodejsFunction's command line amounts to, for any entry points and output. */
export const LAMBDA_ESBUILD_OPTIONS: Readonly<BuildOptions> = {
  bundle: true,
  platform: 'node',
  format: LAMBDA_BUNDLING.format,
  target: LAMBDA_BUNDLING.target,
  mainFields: [...LAMBDA_BUNDLING.mainFields],
  minify: LAMBDA_BUNDLING.minify,
  banner: { js: LAMBDA_BUNDLING.banner },
  sourcemap: LAMBDA_BUNDLING.sourceMap,
  sourcesContent: LAMBDA_BUNDLING.sourcesContent,
};

/** The same for one entry (`esbuild --bundle entry --outfile=...`). */
export function lambdaBuildOptions(entry: string, outfile: string): BuildOptions {
  return { ...LAMBDA_ESBUILD_OPTIONS, entryPoints: [entry], outfile };
}
