/**
 * What a bundle is made of, from esbuild's metafile: the bytes each input left in the output,
 * grouped by where it comes from. A scope counts as one contributor (`@aws-sdk/*`, `@smithy/*`: the
 * SDK's packages only come together), an unscoped package by its name, and everything outside
 * node_modules is our code.
 */
export const OUR_CODE = 'our code';

/** One input of esbuild's metafile output: only its byte count matters here. */
export interface MetafileInput {
  bytesInOutput: number;
}

export interface Contributor {
  name: string;
  bytes: number;
  /** Of the whole bundle, 0..1. */
  share: number;
}

/** 'node_modules/@aws-sdk/client-dynamodb/dist-es/index.js' → '@aws-sdk/client-dynamodb'; nested node_modules count by the innermost. */
export function packageOf(input: string): string {
  // esbuild marks inputs it left out (`browser: false`) as `(disabled):path`.
  const path = input.replace(/^\(disabled\):/, '').replaceAll('\\', '/');
  const marker = path.lastIndexOf('node_modules/');
  if (marker === -1) return OUR_CODE;
  const [first = '', second = ''] = path.slice(marker + 'node_modules/'.length).split('/');
  return first.startsWith('@') ? `${first}/${second}` : first;
}

/** '@smithy/smithy-client' → '@smithy/*'; an unscoped package or our code is its own group. */
export function contributorOf(input: string): string {
  const name = packageOf(input);
  return name.startsWith('@') ? `${name.split('/')[0]}/*` : name;
}

/**
 * The groups by bytes in the bundle, largest first. Bytes no input accounts for (the banner,
 * esbuild's helpers) are left out, so shares need not add up to 1.
 */
export function contributors(inputs: Readonly<Record<string, MetafileInput>>, bundleBytes: number): Contributor[] {
  const bytes = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(inputs)) {
    if (bytesInOutput === 0) continue;
    const name = contributorOf(input);
    bytes.set(name, (bytes.get(name) ?? 0) + bytesInOutput);
  }
  return [...bytes]
    .map(([name, size]) => ({ name, bytes: size, share: bundleBytes > 0 ? Math.round((size / bundleBytes) * 1000) / 1000 : 0 }))
    .sort((a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name));
}
