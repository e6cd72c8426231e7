import { ErrorEnvelopeSchema } from '@fxdesk/schemas';
import type { FastifySchema, RouteOptions } from 'fastify';
import type { jsonSchemaTransformObject } from 'fastify-type-provider-zod';

/** What each error status means wherever the kit answers it; a route may describe its own more precisely. */
const ANSWER_DESCRIPTION: Record<number, string> = {
  400: 'Malformed JSON body or URL, or a JSON body nesting deeper than 64 levels (`invalid_json`, `bad_request`)',
  401: 'Missing or invalid API key (`unauthorized`)',
  403: 'Forbidden',
  404: 'Not found',
  408: 'The request, body included, did not arrive within 30 s (`request_timeout`); the connection is closed',
  409: 'Conflict with the stored state',
  413: 'Body larger than BODY_LIMIT_BYTES (`payload_too_large`)',
  415: 'Body is not application/json (`unsupported_media_type`)',
  422: 'Request failed validation (`validation_error`, with `details`): a missing, mistyped or unknown field or query parameter; or a rule of the service refused it',
  429: 'Too many requests (`rate_limited`); see the Retry-After header',
  500: 'Unexpected failure (`internal_error`); the cause is logged with the request id',
  502: 'The upstream service or broker answered with an error',
  503: 'Not available now: a dependency is down or not ready; see Retry-After where given',
  504: 'The upstream service or broker did not answer in time',
};

type ResponseMap = Record<string, unknown>;

/**
 * Declares that the route answers `status` with the error envelope, unless the route already
 * declares that status itself.
 */
export function documentAnswer(schema: FastifySchema, status: number, description = ANSWER_DESCRIPTION[status] ?? 'Error'): void {
  const response = (schema.response ??= {}) as ResponseMap;
  if (response[status] !== undefined) return;
  response[status] = {
    description,
    content: { 'application/json': { schema: ErrorEnvelopeSchema } },
  };
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const CROSS_ORIGIN_REFUSAL = 'Sent by a browser page of another origin than the service’s own and CORS_ORIGINS (`forbidden`)';

/**
 * The answers the kit itself gives on a route, added to its OpenAPI document so the document
 * names every status the route can answer (DESIGN.md §2): 500 everywhere, 403 on a method that
 * changes state (origin-guard.ts), 429 where a
 * rate limit applies, 400/408/413/415/422 where a JSON body is read, 422 where parameters are
 * validated (every documented route: one with no query schema refuses any query parameter).
 * A method a path does not take is 405 with `Allow`, which OpenAPI has no operation to hang on.
 * The route's own declarations win.
 */
export function documentKitAnswers(route: RouteOptions, options: { globalRateLimit: boolean }): void {
  const schema = (route.schema ??= {});
  if (schema.hide) return;
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  documentAnswer(schema, 500);
  if (methods.some((m) => !SAFE_METHODS.has(m))) documentAnswer(schema, 403, CROSS_ORIGIN_REFUSAL);
  const limit = (route.config as { rateLimit?: unknown } | undefined)?.rateLimit;
  if (limit !== false && (options.globalRateLimit || limit !== undefined)) documentAnswer(schema, 429);
  if (schema.body !== undefined || methods.some((m) => BODY_METHODS.has(m))) {
    for (const status of [400, 408, 413, 415]) documentAnswer(schema, status);
  }
  if (schema.body !== undefined || schema.params !== undefined || schema.querystring !== undefined || schema.headers !== undefined) {
    documentAnswer(schema, 422);
  }
}

type OpenApiObject = ReturnType<typeof jsonSchemaTransformObject>;

const SCHEMA_REF = '#/components/schemas/';

/**
 * Keeps in `components.schemas` only what the document's operations reach: every named zod
 * schema is registered process-wide, so without this each service's document would list the
 * other services' schemas too.
 */
export function withReachableSchemas(document: OpenApiObject): OpenApiObject {
  const { components = {}, paths } = document as { components?: { schemas?: Record<string, unknown> }; paths?: unknown };
  const schemas = components.schemas ?? {};
  const reached = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(SCHEMA_REF)) {
        const name = value.slice(SCHEMA_REF.length);
        if (!reached.has(name)) {
          reached.add(name);
          visit(schemas[name]);
        }
      } else visit(value);
    }
  };
  visit(paths);
  const kept = Object.fromEntries(Object.entries(schemas).filter(([name]) => reached.has(name)));
  return { ...document, components: { ...components, schemas: kept } } as OpenApiObject;
}
