import { build } from 'esbuild';
const r = await build({ stdin: { contents: "import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2'; export const c = new SESv2Client({}); export const s = (i) => c.send(new SendEmailCommand(i));", resolveDir: '.' }, bundle: true, minify: false, format: 'esm', platform: 'node', target: 'node22', mainFields: ['module', 'main'], write: false, metafile: true, logLevel: 'silent' });
const text = r.outputFiles[0].text;
const lines = text.split('\n');
let file = ''; let n=0;
for (const l of lines) { if (l.startsWith('// node_modules/')) { file = l; if (file.includes('CreateContactCommand')) n = 8; } if (n > 0) { console.log(l); n--; } }
// who imports commands?
for (const [f, i] of Object.entries(r.metafile.inputs)) for (const imp of i.imports) if (imp.path.includes('CreateContactCommand')) console.log('importer', f, imp.kind);
