import { readFileSync } from 'node:fs';
import type { RequestContract } from '../http/contract.ts';
import { errorSchema } from '../representations/schemas/error.ts';
import { ROUTES, type Route } from '../routes.ts';
import {
  errorResponseRef,
  errorResponses,
  HEADERS,
  IDEMPOTENCY_KEY_PARAMETER,
  RATE_LIMIT_HEADERS,
  ref,
  SECURITY_SCHEMES,
  SIGNATURE_SCHEMES,
} from './components.ts';
import { SchemaComponents, type JsonSchema } from './json-schema.ts';
import { OPERATIONS, TAG_DESCRIPTIONS, type OperationDescription } from './operations.ts';

/**
 * The OpenAPI 3.1 description of every route in the route table, built from the handlers themselves:
 * each handler carries the zod schemas it validates its request with (its contract), and the success
 * bodies come from the response schemas the representations are typed from. Nothing here is written
 * twice, so the document cannot drift from what runs. Not part of any Lambda bundle.
 */
export type HandlerLoader = (handlerModule: string) => Promise<unknown>;

/** Imports a handler module as its Lambda would, and as the local server does. */
export const importHandler: HandlerLoader = async (name) => {
  const module = (await import(new URL(`../../functions/${name}.ts`, import.meta.url).href)) as { handler: unknown };
  return module.handler;
};

function contractOf(route: Route, handler: unknown): RequestContract {
  const contract = (handler as { contract?: RequestContract } | undefined)?.contract;
  if (!contract) throw new Error(`functions/${route.handler}.ts builds no handler with a contract (restHandler, edgeHandler or webhookReceiver)`);
  if (contract.surface !== route.surface) throw new Error(`functions/${route.handler}.ts is a ${contract.surface} handler on a ${route.surface} route`);
  return contract;
}

/** The local server (`npm start`) answers every surface on one address. */
const LOCAL_SERVER = { url: 'http://127.0.0.1:3000', description: 'The local server (npm start)' };

/** A deployment's API Gateway invoke URL, as the stack output names it (a custom domain serves the same paths at its root). */
const deployedServer = (output: 'ApiUrl' | 'EdgeUrl', serves: string) => ({
  url: 'https://{api_id}.execute-api.{region}.amazonaws.com/{stage}',
  description: `${serves} of a deployment: the ${output} stack output`,
  variables: {
    api_id: { default: 'a1b2c3d4e5', description: `the API id at the start of the ${output} stack output` },
    region: { default: 'eu-west-1', description: 'the AWS region of the stack' },
    stage: { default: 'prod', description: 'the stage context of the stack (cdk.json)' },
  },
});

function tag(name: string) {
  const description = TAG_DESCRIPTIONS[name];
  if (!description) throw new Error(`No description for the tag ${name} in shared/openapi/operations.ts`);
  return { name, description };
}

const words = (name: string) => name.split(/[/-]/);
const operationId = (handler: string) =>
  words(handler)
    .map((word, index) => (index === 0 ? word : word[0]!.toUpperCase() + word.slice(1)))
    .join('');
const tagOf = (route: Route) => route.handler.split('/')[0]!;

interface ObjectSchema {
  properties: Record<string, JsonSchema>;
  required: string[];
}

function objectSchema(schema: RequestContract['params'], schemas: SchemaComponents): ObjectSchema {
  if (!schema) return { properties: {}, required: [] };
  const json = schemas.convert(schema, 'input');
  return { properties: (json.properties ?? {}) as Record<string, JsonSchema>, required: (json.required ?? []) as string[] };
}

function parameters(route: Route, contract: RequestContract, schemas: SchemaComponents): unknown[] {
  const path = objectSchema(contract.params, schemas);
  const query = objectSchema(contract.query, schemas);
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  return [
    ...names.map((name) => ({ name, in: 'path', required: true, schema: path.properties[name] ?? { type: 'string' } })),
    ...Object.entries(query.properties).map(([name, schema]) => ({ name, in: 'query', required: query.required.includes(name), schema })),
    ...(route.surface === 'rest' && route.method === 'POST' ? [IDEMPOTENCY_KEY_PARAMETER] : []),
  ];
}

function requestBody(contract: RequestContract, schemas: SchemaComponents) {
  const variants = contract.bodyVariants?.map((variant) => schemas.convert(variant, 'input'));
  if (!variants && !contract.body) return {};
  const schema = variants ? { oneOf: variants } : schemas.convert(contract.body!, 'input');
  // An object body with no required field may be left out: an empty body reads as {} (unless that is refused: an update).
  const required =
    schema.type !== 'object' || ((schema.required as string[] | undefined)?.length ?? 0) > 0 || ((schema.minProperties as number | undefined) ?? 0) > 0;
  return { requestBody: { required, content: { [contract.contentType ?? 'application/json']: { schema } } } };
}

function security(route: Route, contract: RequestContract): { security: unknown[]; description: string } {
  if (route.surface === 'rest') {
    const scope = route.scope ?? 'any';
    return scope === 'any'
      ? { security: [{ apiKey: [] }], description: 'Any valid API key.' }
      : {
          security: scope.map((name) => ({ apiKey: [name] })),
          description: `Scope: ${scope.map((name) => `\`${name}\``).join(' or ')}.`,
        };
  }
  if (contract.produces === 'text/html') {
    return {
      security: [],
      description:
        "No API key: the personal link's token (in a dunning message) is the credential. Answers HTML for the customer's browser, errors included; limited per link and per client address (429).",
    };
  }
  if (route.surface === 'edge' && !route.path.includes('{token}')) {
    return {
      security: [],
      description:
        "No API key: the merchant's server signs the start (`auth_hash`, required in live mode). Starts are limited to 60 a minute per client address and to the plan's limit per merchant (429).",
    };
  }
  if (route.surface === 'edge') {
    return { security: [], description: 'No API key (§5 rule 6): the session token from start, in the path, is the credential.' };
  }
  const scheme = contract.signatureHeader ? SIGNATURE_SCHEMES[contract.signatureHeader] : undefined;
  if (contract.signatureHeader && !scheme) throw new Error(`No security scheme for the signature header ${contract.signatureHeader}`);
  return scheme
    ? { security: [{ [scheme]: [] }], description: `Signed by the processor in ${contract.signatureHeader}; refused with 400 and nothing stored otherwise.` }
    : { security: [], description: 'Signed by the processor inside the body (bt_signature over bt_payload, checked with the connection keys).' };
}

/** The trial rule of a write (§5): 403 trial_expired once the trial ended, unless the route is a safety action. */
function trialNote(route: Route): string | undefined {
  const allowed = route.afterTrial;
  if (allowed === undefined) return undefined;
  const when = allowed === true ? '' : ` when the body is exactly \`${JSON.stringify(allowed.onlyBody)}\``;
  return `A safety action: allowed after the trial ends${when}, when other writes answer 403 trial_expired.`;
}

/** The statuses each kind of route can answer with besides success. */
function errorStatuses(route: Route, contract: RequestContract): number[] {
  if (route.surface !== 'rest') return [400, ...(contract.alsoAnswers ?? []), 404, 500].toSorted((a, b) => a - b);
  const hasPathParameters = route.path.includes('{');
  const changes = route.method !== 'GET';
  const takesInput = route.method === 'POST' || contract.body !== undefined || contract.bodyVariants !== undefined;
  return [400, 401, 403, ...(hasPathParameters ? [404] : []), ...(changes ? [409] : []), ...(takesInput ? [422] : []), 429, 500];
}

function successHeaders(route: Route) {
  if (route.surface !== 'rest') return { 'X-Request-Id': ref('headers', 'RequestId') };
  return { ...RATE_LIMIT_HEADERS, ...(route.method === 'POST' ? { 'Idempotent-Replayed': ref('headers', 'IdempotentReplayed') } : {}) };
}

function operation(route: Route, contract: RequestContract, schemas: SchemaComponents) {
  const described = OPERATIONS[route.handler];
  if (!described) throw new Error(`No response description for ${route.handler} in shared/openapi/operations.ts`);
  const parameterList = parameters(route, contract, schemas);
  const { security: requirements, description } = security(route, contract);
  return {
    operationId: operationId(route.handler),
    summary: described.summary,
    description: [description, trialNote(route)].filter(Boolean).join(' '),
    tags: [tagOf(route)],
    ...(parameterList.length > 0 ? { parameters: parameterList } : {}),
    ...requestBody(contract, schemas),
    security: requirements,
    responses: contract.produces === 'text/html' ? pageResponses(route, described) : {
      [described.status]: {
        description: described.summary,
        headers: successHeaders(route),
        content: { 'application/json': { schema: schemas.convert(described.body, 'output') } },
      },
      ...Object.fromEntries(errorStatuses(route, contract).map((status) => [status, errorResponseRef(status)])),
    },
  };
}

/** A page's answers: HTML for every status, the link's expired page as its 404. */
function pageResponses(route: Route, described: OperationDescription) {
  const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
  return {
    [described.status]: { ...html(described.summary), headers: successHeaders(route) },
    ...(route.method === 'POST' ? { 303: { description: 'Stripe: on to Stripe Checkout (Location)', headers: { Location: { schema: { type: 'string', format: 'uri' } } } } } : {}),
    ...(route.method === 'POST' ? { 422: html('The card was refused: the form again, the error on its field') } : {}),
    404: html('The link is unknown or expired: a page naming whom to ask'),
    429: html('Too many requests for this link or from this address; Retry-After says when to try again'),
    500: html('The page could not be shown'),
  };
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

export async function buildOpenApiDocument(load: HandlerLoader = importHandler) {
  const schemas = new SchemaComponents();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const contract = contractOf(route, await load(route.handler));
    const item = (paths[route.path] ??= {});
    // The cancel-session API is its own API Gateway API (EdgeUrl); locally one server answers both.
    if (route.surface === 'edge') item.servers ??= [LOCAL_SERVER, deployedServer('EdgeUrl', 'The cancel-session API')];
    item[route.method.toLowerCase()] = operation(route, contract, schemas);
  }
  const errorBody = schemas.convert(errorSchema, 'output');
  return {
    openapi: '3.1.0',
    info: {
      title: 'Failed-payment recovery API',
      version: packageVersion(),
      description:
        'The merchant REST API (`/v1`, API key), the cancel-session API the widget calls (`/api/cancel-session`, session token) and ' +
        'the processor webhook receivers (`/webhooks`, signatures). Single resources answer `{data}`, lists `{data, pagination}`; ' +
        'every error is `{error: {code, message, param?, request_id}}`. Generated from the handlers\' own schemas (`npm run openapi`).',
      // Not open source (the package is private, with no licence to grant): SPDX's form for a licence of one's own.
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [LOCAL_SERVER, deployedServer('ApiUrl', 'The REST API and processor webhooks')],
    tags: [...new Set(ROUTES.map(tagOf))].map(tag),
    paths,
    components: {
      schemas: schemas.schemas,
      responses: errorResponses(errorBody),
      headers: HEADERS,
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

export type OpenApiDocument = Awaited<ReturnType<typeof buildOpenApiDocument>>;
