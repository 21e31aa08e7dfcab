import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { OPENAPI_FILE } from '../../shared/openapi/file.ts';

/**
 * A client generated from the committed description, as a merchant would make one: openapi-typescript's
 * types, used through openapi-fetch, compiled strictly. Written under node_modules/.cache (ignored),
 * inside the repository so `openapi-fetch` resolves from it.
 */
const cacheDir = join(process.cwd(), 'node_modules', '.cache');
mkdirSync(cacheDir, { recursive: true });
const workDir = mkdtempSync(join(cacheDir, 'openapi-client-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** A typed use of the client; each `@ts-expect-error` fails the compile if the line it marks type-checks. */
const USAGE = `
import createClient from 'openapi-fetch';
import type { components, paths } from './api.ts';

type PaymentStatus = components['schemas']['PaymentDetail']['status'];

export async function paymentStatus(apiKey: string, id: string): Promise<PaymentStatus | undefined> {
  const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:3000', headers: { Authorization: \`Bearer \${apiKey}\` } });
  const { data, error } = await client.GET('/v1/payments/{id}', { params: { path: { id } } });
  if (error) {
    const code: string = error.error.code;
    throw new Error(code);
  }
  const status: 'pending' | 'retrying' | 'recovered' | 'terminal' | 'communication_pending' = data.data.status;
  // @ts-expect-error the path names its parameter id
  await client.GET('/v1/payments/{id}', { params: { path: { payment_id: id } } });
  // @ts-expect-error no such route
  await client.GET('/v1/payment/{id}', { params: { path: { id } } });
  // @ts-expect-error a payment's amount is a number
  const amount: string = data.data.amount;
  return amount === '' ? undefined : status;
}

export async function recentRecovery(client: ReturnType<typeof createClient<paths>>) {
  // No range: the last 30 days (from and to are optional).
  const { data } = await client.GET('/v1/analytics/recovery', {});
  return data?.data.from;
}
`;

function diagnosticsOf(files: string[]): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Preserve,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    skipLibCheck: true,
  });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file ? `${diagnostic.file.fileName}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}: ` : '';
    return where + ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
  });
}

describe('a client generated from docs/openapi.json', () => {
  it('type-checks, with typed paths, parameters and bodies', async () => {
    // Prepare
    const api = join(workDir, 'api.ts');
    const usage = join(workDir, 'usage.ts');
    writeFileSync(api, astToString(await openapiTS(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')))));
    writeFileSync(usage, USAGE);
    // Act
    const diagnostics = diagnosticsOf([api, usage]);
    // Assess
    expect(diagnostics).toEqual([]);
    expect(readFileSync(api, 'utf8')).toContain('"/v1/payments/{id}"');
  });
});
