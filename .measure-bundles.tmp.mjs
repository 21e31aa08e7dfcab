import { build } from 'esbuild';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
const banner = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";
const walk = (d) => readdirSync(d).flatMap((f) => { const p = join(d, f); return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : []; });
const only = process.argv[2];
const entries = walk('functions').filter((e) => !only || e.includes(only)).sort();
const out = [];
for (const entry of entries) {
  const r = await build({ entryPoints: [entry], bundle: true, minify: true, format: 'esm', platform: 'node', target: 'node22', mainFields: ['module', 'main'], banner: { js: banner }, write: false, metafile: true, logLevel: 'silent' });
  const size = r.outputFiles[0].contents.length;
  const inputs = Object.values(r.metafile.outputs)[0].inputs;
  const byPkg = {};
  for (const [file, info] of Object.entries(inputs)) {
    const m = file.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
    const key = m ? m[1] : file.split('/').slice(0, 2).join('/');
    byPkg[key] = (byPkg[key] ?? 0) + info.bytesInOutput;
  }
  const top = Object.entries(byPkg).sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k, v]) => `${k}=${(v / 1024).toFixed(0)}`);
  out.push({ entry, kb: +(size / 1024).toFixed(1), top });
}
out.sort((a, b) => b.kb - a.kb);
for (const o of out) console.log(`${o.kb.toFixed(1).padStart(7)} KB  ${o.entry}${o.kb > 534 || process.env.TOP ? '\n          ' + o.top.join(' ') : ''}`);
