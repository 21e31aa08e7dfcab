/**
 * `npm run openapi`: writes docs/openapi.json from the handlers' own schemas (shared/openapi/). Handler
 * modules read their configuration at import, as a Lambda does at cold start, so they get the local
 * runtime's; nothing is called, so no DynamoDB Local needs to run.
 */
import { writeFileSync } from 'node:fs';
import { VAULT_KEY_FILE } from './local/credentials.ts';
import { localEnvironment } from './local/table.ts';

Object.assign(process.env, localEnvironment('http://127.0.0.1:1', 'openapi', VAULT_KEY_FILE), { LOG_LEVEL: 'error' });
// Handlers take their ports at import; the local stand-ins need no AWS configuration (SCHEDULE_GROUP, MAIL_FROM, …).
const { installLocalRuntime } = await import('./local/local-runtime.ts');
installLocalRuntime('openapi');

const { OPENAPI_FILE, serializeDocument } = await import('../shared/openapi/file.ts');
const { buildOpenApiDocument } = await import('../shared/openapi/document.ts');

writeFileSync(OPENAPI_FILE, serializeDocument(await buildOpenApiDocument()));
console.log(`wrote ${OPENAPI_FILE.pathname}`);
