import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_FILE } from '../../shared/openapi/file.ts';
import { ROUTES } from '../../shared/routes.ts';
import { startLocalServer, type RunningServer } from '../support/local-server.ts';

let server: RunningServer;

beforeAll(async () => {
  server = await startLocalServer();
});

afterAll(async () => {
  await server?.stop();
});

describe('GET /v1/openapi.json on the local server', () => {
  it('serves the committed description without an API key', async () => {
    // Act
    const response = await fetch(`${server.baseUrl}/v1/openapi.json`);

    // Assess
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const document = (await response.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(document).toEqual(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')));
    expect(document.openapi).toBe('3.1.0');
    for (const route of ROUTES) expect(document.paths[route.path]?.[route.method.toLowerCase()], `${route.method} ${route.path}`).toBeDefined();
  });

  it('answers other methods on the path as an unknown route of the merchant API', async () => {
    const anonymous = await fetch(`${server.baseUrl}/v1/openapi.json`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
    const response = await fetch(`${server.baseUrl}/v1/openapi.json`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${server.credentials.keys.test_read}` },
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('resource_not_found');
  });
});
