import { build } from 'esbuild';
const banner = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";
const [entry, pkg] = process.argv.slice(2);
const r = await build({ entryPoints: [entry], bundle: true, minify: true, format: 'esm', platform: 'node', target: 'node22', mainFields: ['module', 'main'], banner: { js: banner }, write: false, metafile: true, logLevel: 'silent' });
const inputs = Object.values(r.metafile.outputs)[0].inputs;
for (const [f, i] of Object.entries(inputs).filter(([f]) => f.includes(pkg)).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput).slice(0, 15)) console.log(String(i.bytesInOutput).padStart(7), f);
