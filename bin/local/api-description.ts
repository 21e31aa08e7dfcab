import type { ServerResponse } from 'node:http';
import { buildOpenApiDocument } from '../../shared/openapi/document.ts';
import { serializeDocument } from '../../shared/openapi/file.ts';
import type { HttpRequest } from './lambda-event.ts';

export const API_DESCRIPTION_PATH = '/v1/openapi.json';

let built: Promise<string> | undefined;

/**
 * GET /v1/openapi.json, without an API key: the OpenAPI description of every route, built once from
 * the same handler modules the server dispatches to (docs/decisions.md, "API description").
 */
export async function apiDescriptionRoute(request: HttpRequest, response: ServerResponse): Promise<boolean> {
  if (request.method !== 'GET' || request.path !== API_DESCRIPTION_PATH) return false;
  built ??= buildOpenApiDocument()
    .then(serializeDocument)
    .catch((error: unknown) => {
      built = undefined;
      throw error;
    });
  const text = await built;
  response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-cache', 'Access-Control-Allow-Origin': '*' });
  response.end(text);
  return true;
}
