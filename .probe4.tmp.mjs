import { build } from 'esbuild';
for (const minify of [false, true]) {
const r = await build({ stdin: { contents: "import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2'; export const c = new SESv2Client({}); export const s = (i) => c.send(new SendEmailCommand(i));", resolveDir: '.' }, bundle: true, minify, format: 'esm', platform: 'node', target: 'node22', mainFields: ['module', 'main'], write: false, metafile: true, logLevel: 'silent' });
const inputs = Object.values(r.metafile.outputs)[0].inputs;
console.log(minify, inputs['node_modules/@aws-sdk/client-sesv2/dist-es/schemas/schemas_0.js'].bytesInOutput, r.outputFiles[0].text.includes('CreateContactRequest'), r.outputFiles[0].text.includes('BlacklistEntries'));
}
