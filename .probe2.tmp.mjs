import { build } from 'esbuild';
const r = await build({ stdin: { contents: "import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2'; export const c = new SESv2Client({}); export const s = (i) => c.send(new SendEmailCommand(i));", resolveDir: '.' }, bundle: true, minify: false, format: 'esm', platform: 'node', target: 'node22', mainFields: ['module', 'main'], write: false, metafile: true, logLevel: 'silent' });
const text = r.outputFiles[0].text;
const lines = text.split('\n');
let file = '';
for (const l of lines) { if (l.startsWith('// node_modules/')) file = l; if (/CreateContactRequest\$/.test(l)) console.log(file, '|', l.slice(0, 160)); }
console.log(Object.keys(r.metafile.inputs).filter(f => f.includes('client-sesv2')).join('\n'));
