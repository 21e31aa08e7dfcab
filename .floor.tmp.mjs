import { build } from 'esbuild';
const banner = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";
const r = await build({ entryPoints: ['bench/floor/handler.ts'], bundle: true, minify: true, format: 'esm', platform: 'node', target: 'node22', mainFields: ['module', 'main'], banner: { js: banner }, write: false, metafile: true, logLevel: 'silent' });
const inputs = Object.values(r.metafile.outputs)[0].inputs; const byPkg = {};
for (const [file, info] of Object.entries(inputs)) { const m = file.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/); const key = m ? m[1] : file; byPkg[key] = (byPkg[key] ?? 0) + info.bytesInOutput; }
console.log((r.outputFiles[0].contents.length/1024).toFixed(1), Object.entries(byPkg).sort((a,b)=>b[1]-a[1]).slice(0,12).map(([k,v])=>k+'='+(v/1024).toFixed(0)).join(' '));
