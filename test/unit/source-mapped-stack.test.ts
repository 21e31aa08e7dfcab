import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaBuildOptions } from '../../lib/bundling.ts';
import { describeError } from '../../shared/log.ts';

const LOG_MODULE = join(import.meta.dirname, '..', '..', 'shared', 'log.ts');

/** A handler that fails on line 4 of its own source, bundled as the stack bundles functions. */
const ENTRY = `import { describeError } from ${JSON.stringify(LOG_MODULE)};

function failDeepInside(): never {
  throw new Error('broken on purpose');
}

try {
  failDeepInside();
} catch (error) {
  process.stdout.write(JSON.stringify(describeError(error)));
}
`;

describe('stack traces of a bundled function', () => {
  let dir: string;
  const bundle = () => join(dir, 'index.mjs');
  const logged = () => JSON.parse(execFileSync(process.execPath, [bundle()], { encoding: 'utf8' })) as { error_message: string; stack: string };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'source-mapped-stack-'));
    writeFileSync(join(dir, 'entry.ts'), ENTRY);
    await build({ ...lambdaBuildOptions(join(dir, 'entry.ts'), bundle()), logLevel: 'silent' });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('name the source line through the map shipped beside the bundle, without Node loading it at start', () => {
    // Act: no --enable-source-maps, as deployed
    const error = logged();

    // Assess
    expect(error.error_message).toBe('broken on purpose');
    const [, topFrame] = error.stack.split('\n');
    expect(topFrame).toMatch(/\(entry\.ts:4:9\)$/);
    expect(error.stack).not.toContain('index.mjs');
  });

  it('keep the bundle positions when the map is missing', () => {
    // Prepare
    rmSync(`${bundle()}.map`);

    // Act
    const error = logged();

    // Assess
    expect(error.stack.split('\n')[1]).toMatch(/index\.mjs:\d+:\d+\)$/);
  });

  it('pass through unchanged outside a bundle', () => {
    // Prepare
    const error = new Error('in process');

    // Act
    const described = describeError(error);

    // Assess
    expect(described.stack).toBe(error.stack);
  });
});
