import { build } from 'esbuild';
const r = await build({ stdin: { contents: "import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2'; export const c = new SESv2Client({}); export const s = (i) => c.send(new SendEmailCommand(i));", resolveDir: '.' }, bundle: true, minify: false, format: 'esm', platform: 'node', target: 'node22', mainFields: ['module', 'main'], write: false, logLevel: 'silent' });
const t = r.outputFiles[0].text;
const find = (name) => { const re = new RegExp('[^\\w$]' + name.replace('$','\\$') + '[^\\w$]', 'g'); let m; const out=[]; while ((m = re.exec(t))) { const ls = t.lastIndexOf('\nvar ', m.index); out.push(t.slice(ls+1, ls+60).split('\n')[0]); } return out; };
console.log(find('CreateContactRequest$'));
console.log(find('CreateContact$'));
console.log(find('ListContacts$').slice(0,5));
