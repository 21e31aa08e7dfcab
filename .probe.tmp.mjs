import { build } from 'esbuild';
const r = await build({ stdin: { contents: "import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2'; export const c = new SESv2Client({}); export const s = (i) => c.send(new SendEmailCommand(i));", resolveDir: '.' }, bundle: true, minify: false, format: 'esm', platform: 'node', target: 'node22', mainFields: ['module', 'main'], write: false, metafile: true, logLevel: 'silent' });
const text = r.outputFiles[0].text;
const lines = text.split('\n');
let on = false; const out = [];
for (const l of lines) { if (l.startsWith('// node_modules/')) on = l.includes('client-sesv2/dist-es/schemas/schemas_0.js'); if (on) out.push(l); }
const body = out.join('\n');
console.log(body.length);
const names = [...body.matchAll(/^var ([\w$]+) = \[/gm)].map(m => m[1]);
console.log(names.length, names.join(' ').slice(0, 3000));
