import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RequestContract } from '../../shared/http/contract.ts';
import { buildOpenApiDocument, importHandler, type OpenApiDocument } from '../../shared/openapi/document.ts';
import { OPENAPI_FILE, serializeDocument } from '../../shared/openapi/file.ts';
import { OPERATIONS } from '../../shared/openapi/operations.ts';
import { ROUTES } from '../../shared/routes.ts';

type Operation = {
  operationId: string;
  parameters?: { name: string; in: string; required: boolean }[];
  requestBody?: unknown;
  security: Record<string, string[]>[];
  responses: Record<string, unknown>;
};

let document: OpenApiDocument;

const operationOf = (method: string, path: string) => (document.paths[path] as Record<string, Operation> | undefined)?.[method.toLowerCase()];

async function contractOf(handlerModule: string): Promise<RequestContract> {
  return ((await importHandler(handlerModule)) as { contract: RequestContract }).contract;
}

/** Every `schema` inside the paths: parameters, bodies and headers. */
function inlineSchemas(node: unknown, found: unknown[] = []): unknown[] {
  if (node === null || typeof node !== 'object') return found;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'schema') found.push(value);
    else inlineSchemas(value, found);
  }
  return found;
}

beforeAll(async () => {
  document = await buildOpenApiDocument();
});

describe('OpenAPI description', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    // Prepare
    const validator = new Validator();

    // Act
    const result = await validator.validate(structuredClone(document));

    // Assess
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('holds only schemas that compile as JSON Schema 2020-12 in strict mode', () => {
    // Prepare: the OpenAPI validator checks the document's structure, not the JSON Schema inside it.
    const base = 'https://openapi.invalid/document';
    const absolute = (schema: unknown) => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${base}#/components/`));
    // strictRequired too: every required property is defined (records keyed by an enum are written out as objects).
    const ajv = new Ajv2020({ strict: true, strictRequired: true, validateFormats: false, keywords: ['components'] });
    ajv.addSchema({ $id: base, components: { schemas: absolute(document.components.schemas) } });
    const schemas = [
      ...Object.keys(document.components.schemas).map((name) => ({ $ref: `${base}#/components/schemas/${name}` })),
      ...inlineSchemas(document.paths).map(absolute),
    ];

    // Act
    const compiled = schemas.map((schema) => ajv.compile(schema));

    // Assess
    expect(compiled.length).toBeGreaterThan(ROUTES.length * 2);
    expect(() => ajv.compile({ type: 'objekt' })).toThrow();
  });

  it('has every route of the route table, on every surface, with its method and path', () => {
    for (const route of ROUTES) {
      expect(operationOf(route.method, route.path), `${route.method} ${route.path}`).toBeDefined();
    }
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).filter((key) => key !== 'servers').map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(ROUTES.map((route) => `${route.method} ${route.path}`).sort());
    expect(new Set(ROUTES.map((route) => route.surface))).toEqual(new Set(['rest', 'edge', 'webhook']));
    expect(Object.keys(OPERATIONS).sort()).toEqual(ROUTES.map((route) => route.handler).sort());
    const ids = ROUTES.map((route) => operationOf(route.method, route.path)!.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("documents each route's parameters and body from the schemas its handler validates with", async () => {
    for (const route of ROUTES) {
      const contract = await contractOf(route.handler);
      const operation = operationOf(route.method, route.path)!;
      const named = (place: string) => (operation.parameters ?? []).filter((parameter) => parameter.in === place).map((parameter) => parameter.name);
      const shapeKeys = (schema: unknown) => Object.keys((schema as { shape?: object } | undefined)?.shape ?? {});
      expect(named('query').sort(), route.handler).toEqual(shapeKeys(contract.query).sort());
      expect(named('path'), route.handler).toEqual([...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]));
      expect(operation.requestBody !== undefined, route.handler).toBe(contract.body !== undefined || contract.bodyVariants !== undefined);
    }
    const paymentList = operationOf('GET', '/v1/payments')!.parameters!;
    expect(paymentList.find((parameter) => parameter.name === 'per_page')).toEqual({
      name: 'per_page',
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    });
  });

  it('describes the credentials of each surface and the errors in one envelope', () => {
    for (const route of ROUTES) {
      const operation = operationOf(route.method, route.path)!;
      if (route.surface === 'rest') {
        const expected = route.scope === 'any' || route.scope === undefined ? [{ apiKey: [] }] : route.scope.map((scope) => ({ apiKey: [scope] }));
        expect(operation.security, route.handler).toEqual(expected);
        expect(Object.keys(operation.responses), route.handler).toEqual(expect.arrayContaining(['400', '401', '403', '429', '500']));
      } else if (route.path.startsWith('/update/')) {
        // The card-update page answers people: an unknown link or a bad form is a page, never the envelope's 400.
        expect(Object.keys(operation.responses), route.handler).toEqual(expect.arrayContaining(['404', '500']));
      } else {
        expect(Object.keys(operation.responses), route.handler).toEqual(expect.arrayContaining(['400', '404', '500']));
      }
    }
    expect(operationOf('POST', '/webhooks/stripe/{connection_id}')!.security).toEqual([{ stripeSignature: [] }]);
    expect(operationOf('POST', '/webhooks/{psp}/{connection_id}')!.security).toEqual([{ recoverySignature: [] }]);
    expect(operationOf('GET', '/api/cancel-session/{token}')!.security).toEqual([]);
    expect(document.components.responses.NotFound?.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
  });

  it('is committed as docs/openapi.json exactly as generated (run `npm run openapi` after changing a schema)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(serializeDocument(document));
  });
});
