import { build } from 'esbuild';
const banner = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";
const entry = process.argv[2];
const r = await build({ entryPoints: [entry], bundle: true, minify: true, format: 'esm', platform: 'node', target: 'node22', mainFields: ['module', 'main'], banner: { js: banner }, write: false, metafile: true, logLevel: 'silent' });
const inputs = Object.values(r.metafile.outputs)[0].inputs;
const own = Object.entries(inputs).filter(([f]) => !f.includes('node_modules')).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput);
for (const [f, i] of own) console.log(String(i.bytesInOutput).padStart(7), f);
// who imports each package root
const importers = {};
for (const [file, info] of Object.entries(r.metafile.inputs)) for (const imp of info.imports) {
  if (!file.includes('node_modules') && imp.path.includes('node_modules')) { const m = imp.path.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/); (importers[m[1]] ??= new Set()).add(file); }
}
for (const [pkg, files] of Object.entries(importers)) console.log(pkg, '<-', [...files].join(', '));
