import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * A stack trace of the deployed bundle, read through the source map shipped beside it
 * (`index.mjs.map`), so a logged error names `shared/http/envelope.ts:31:33` rather than
 * `index.mjs:104:37502`. Node can do this itself (`--enable-source-maps`), but then it reads and
 * parses the whole map at every cold start (10-15 ms) and decodes it on the first stack it prints
 * (some 65 ms); here that happens only when an unexpected error is logged (docs/decisions.md,
 * "Bundles and cold start: import work").
 *
 * Only frames in this module's own file are mapped: in a bundle that is the bundle, and outside one
 * (tsx, tests) there is no map beside it and stacks pass through unchanged.
 */
const SELF = import.meta.url;
const FRAME = new RegExp(`${SELF.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:(\\d+):(\\d+)`, 'g');

let bundleMap: SourceMap | null | undefined;

function loadMap(): SourceMap | null {
  if (bundleMap === undefined) {
    const file = `${fileURLToPath(SELF)}.map`;
    bundleMap = existsSync(file) ? new SourceMap(JSON.parse(readFileSync(file, 'utf8'))) : null;
  }
  return bundleMap;
}

/** `../../../shared/log.ts` → `shared/log.ts`: sources are relative to wherever the bundle was built. */
const projectPath = (source: string): string => source.replace(/^(\.\.?\/)+/, '');

export function sourceMappedStack(stack: string): string {
  if (!stack.includes(SELF)) return stack;
  const map = loadMap();
  if (!map) return stack;
  return stack.replace(FRAME, (frame, line: string, column: string) => {
    const entry = map.findEntry(Number(line) - 1, Number(column) - 1);
    if (!('originalSource' in entry)) return frame;
    return `${projectPath(entry.originalSource)}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
}
