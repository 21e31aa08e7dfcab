import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

/** An HTTP request as the local server or a test sees it, before API Gateway's translation. */
export interface HttpRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  sourceIp: string;
}

const TEXT_TYPES = /^(application\/([\w.+-]+\+)?json|text\/|application\/x-www-form-urlencoded)/i;

function single(headers: HttpRequest['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value[value.length - 1]! : value;
  }
  return out;
}

function multi(headers: HttpRequest['headers']): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value : [value];
  }
  return out;
}

/** Normalises ::ffff:127.0.0.1 to the IPv4 form API Gateway reports. */
function sourceAddress(ip: string): string {
  return ip.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');
}

/** The API Gateway (REST, proxy integration) event Lambda would receive for this request. */
export function toLambdaEvent(
  request: HttpRequest,
  resource: string,
  pathParameters: Record<string, string> | null,
): APIGatewayProxyEvent {
  const headers = single(request.headers);
  const contentType = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? 'application/json';
  const text = request.body.length === 0 || TEXT_TYPES.test(contentType);
  const queryEntries = [...request.query.keys()];
  const now = Date.now();
  return {
    resource,
    path: request.path,
    httpMethod: request.method,
    headers,
    multiValueHeaders: multi(request.headers),
    queryStringParameters: queryEntries.length ? Object.fromEntries(request.query.entries()) : null,
    multiValueQueryStringParameters: queryEntries.length
      ? Object.fromEntries(queryEntries.map((key) => [key, request.query.getAll(key)]))
      : null,
    pathParameters: pathParameters && Object.keys(pathParameters).length ? pathParameters : null,
    stageVariables: null,
    body: request.body.length === 0 ? null : text ? request.body.toString('utf8') : request.body.toString('base64'),
    isBase64Encoded: !text,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: request.method,
      path: request.path,
      stage: 'local',
      requestId: randomUUID(),
      requestTimeEpoch: now,
      resourceId: 'local',
      resourcePath: resource,
      identity: {
        sourceIp: sourceAddress(request.sourceIp),
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        user: null,
        userAgent: headers['user-agent'] ?? null,
        userArn: null,
      },
    },
  };
}

export function lambdaContext(functionName: string): Context {
  const deadline = Date.now() + 29_000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export function fromLambdaResult(result: APIGatewayProxyResult): HttpResponse {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) headers[name] = values.map(String).join(', ');
  const body = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
  return { status: result.statusCode, headers, body };
}
