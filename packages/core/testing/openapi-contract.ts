import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { App } from '../src/service.js';
import { SchemaArbitraries, type JsonSchema } from './schema-arbitrary.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: JsonSchema;
}

interface MediaType {
  schema?: JsonSchema;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
  security?: Record<string, string[]>[];
}

interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema>; securitySchemes?: Record<string, { type: string; in?: string; name?: string; scheme?: string }> };
  security?: Record<string, string[]>[];
}

/** One generated request: what is sent, and how it was made (for the failure report). */
interface GeneratedRequest {
  kind: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface ContractSuiteOptions {
  /** Builds the service's app as server.ts would, with test config and deps. */
  build: () => Promise<App>;
  /** A valid credential per security scheme name of the document (e.g. `{ apiKey: 'k' }`). */
  credentials?: Record<string, string>;
  /** Headers that open the kit's routes (/docs/json) where the service keys them. */
  kitRouteHeaders?: Record<string, string>;
  /** The service's BODY_LIMIT_BYTES, to send bodies past it. */
  bodyLimitBytes: number;
  /** Generated requests per operation (at least 200). */
  runsPerOperation?: number;
  /** Operations to leave out, `GET /path` as in the document, each with its reason. */
  skip?: Record<string, string>;
  /**
   * Known-good requests per operation (`POST /path` → parts), sent among the generated ones: a
   * body valid by rules across fields that JSON Schema does not express reaches the success path
   * (and, sent again, its replay).
   */
  examples?: Record<string, ExampleRequest[]>;
  /**
   * Operations whose query takes parameters it does not name (`GET /path` → reason), such as a
   * webhook whose sender adds its own: an unknown one is not expected to be refused there.
   */
  looseQuery?: Record<string, string>;
}

export interface ExampleRequest {
  path?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

const BODY_METHODS = new Set(['post', 'put', 'patch']);
const STREAM = 'text/event-stream';
/** Methods sent to every documented path that does not document them, each expected to be 405 with Allow. */
const OTHER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE'];
const UNKNOWN_QUERY = 'unknown_parameter';

export type ContractCheckOptions = Omit<ContractSuiteOptions, 'build'>;

/** Statuses answered per operation (`GET /path` → status → count). */
export type ContractReport = Record<string, Record<number, number>>;

/**
 * The OpenAPI contract of a service, checked from its own document: for every operation in
 * `/docs/json`, generated requests (valid ones from the documented schemas, and invalid ones:
 * wrong or missing key, malformed and oversized bodies, wrong types, unknown and missing fields,
 * junk and overlong parameters, an unknown query parameter) are sent to the running service, and
 * every answer must carry a status the operation documents, in a documented media type, with a
 * body that validates against the documented schema; an unknown query parameter must be 422
 * `validation_error`. Every method a path does not document must be 405 `method_not_allowed`
 * with an `Allow` header naming at least the documented ones. Streams (text/event-stream) are checked by status and media
 * type, then closed. Throws on the first answer that breaks the document (fast-check shrinks it
 * to a small request first); the app is listened on a free port and left open.
 */
export async function checkOpenApiContract(app: App, options: ContractCheckOptions): Promise<ContractReport> {
  const runs = options.runsPerOperation ?? 200;
  if (runs < 200) throw new Error('the contract check sends at least 200 requests per operation');
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const doc = (await (await fetch(`${base}/docs/json`, { headers: options.kitRouteHeaders })).json()) as OpenApiDocument;
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  const validators = new Map<string, ValidateFunction>();
  const arbitraries = new SchemaArbitraries(doc.components);
  const report: ContractReport = {};

  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const label = `${method.toUpperCase()} ${path}`;
      if (options.skip?.[label] !== undefined) continue;
      const statuses: Record<number, number> = {};
      await fc.assert(
        fc.asyncProperty(requestsFor(path, method, operation), async (request) => {
          const status = await send(request, operation, label);
          statuses[status] = (statuses[status] ?? 0) + 1;
        }),
        { numRuns: runs, endOnFailure: true, includeErrorInReport: true },
      );
      report[label] = statuses;
    }
    await expectMethodsNotAllowed(path, Object.keys(item));
  }
  return report;

  /** Each method `path` does not document is 405 in the envelope, with Allow naming at least the documented ones. */
  async function expectMethodsNotAllowed(path: string, documented: string[]): Promise<void> {
    const own = documented.map((m) => m.toUpperCase());
    const url = path.replace(/\{[^}]+\}/g, 'x');
    for (const method of OTHER_METHODS.filter((m) => !own.includes(m))) {
      const res = await rawRequest(`${base}${url}`, method, { ...options.kitRouteHeaders, ...everyCredential() });
      const text = res.body;
      const where = `${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`;
      expect(res.status, where).toBe(405);
      const allow = String(res.headers.allow ?? '').split(/,\s*/);
      expect(allow, `${where}, Allow: ${String(res.headers.allow)}`).toEqual(expect.arrayContaining(own));
      const body = JSON.parse(text) as { error?: unknown; code?: unknown };
      expect(body.error, where).toBe(true);
      expect(String(body.code).toLowerCase(), where).toBe('method_not_allowed');
    }
  }

  function requestsFor(path: string, method: string, operation: Operation): fc.Arbitrary<GeneratedRequest> {
    const parameters = operation.parameters ?? [];
    const valueOf = (p: Parameter) => arbitraries.valid(p.schema ?? true);
    const pathParams = parameters.filter((p) => p.in === 'path');
    const queryParams = parameters.filter((p) => p.in === 'query');
    const bodySchema = operation.requestBody?.content['application/json']?.schema;
    const secured = (operation.security ?? doc.security ?? []).some((r) => Object.keys(r).length > 0);

    const validParts = fc.record({
      path: fc.tuple(...pathParams.map((p) => valueOf(p).filter(isPathSegment))),
      query: fc.tuple(
        ...queryParams.map((p) =>
          p.required ? valueOf(p).map((v) => [v]) : fc.option(valueOf(p), { nil: undefined }).map((v) => (v === undefined ? [] : [v])),
        ),
      ),
      body: bodySchema ? arbitraries.valid(bodySchema).map((v) => JSON.stringify(v)) : fc.constant(undefined),
    });

    const build = (
      kind: string,
      parts: { path: unknown[]; query: unknown[][]; body: string | undefined },
      extra: Partial<GeneratedRequest> = {},
    ): GeneratedRequest => {
      let url = path;
      pathParams.forEach((p, i) => (url = url.replace(`{${p.name}}`, pathSegment(parts.path[i]))));
      const search = new URLSearchParams();
      queryParams.forEach((p, i) => (parts.query[i] ?? []).forEach((v) => search.append(p.name, queryValue(v))));
      const query = search.toString();
      const headers: Record<string, string> = { ...credentialHeaders(operation) };
      if (parts.body !== undefined) headers['content-type'] = 'application/json';
      return { kind, method: method.toUpperCase(), url: query ? `${url}?${query}` : url, headers, body: parts.body, ...extra };
    };

    const variants: fc.Arbitrary<GeneratedRequest>[] = [validParts.map((parts) => build('valid', parts))];
    const weights: number[] = [4];
    const add = (weight: number, arbitrary: fc.Arbitrary<GeneratedRequest>) => {
      variants.push(arbitrary);
      weights.push(weight);
    };

    const examples = options.examples?.[`${method.toUpperCase()} ${path}`] ?? [];
    if (examples.length > 0) {
      add(
        2,
        fc.constantFrom(...examples).map((example) =>
          build('valid', {
            path: pathParams.map((p) => example.path?.[p.name]),
            query: queryParams.map((p) => (example.query?.[p.name] === undefined ? [] : [example.query[p.name]])),
            body: example.body === undefined ? undefined : JSON.stringify(example.body),
          }),
        ),
      );
    }

    if (secured) {
      add(
        1,
        validParts.map((parts) => ({ ...build('no key', parts), headers: withoutCredentials(build('', parts).headers) })),
      );
      add(
        1,
        validParts.map((parts) => ({ ...build('wrong key', parts), headers: wrongCredentials(build('', parts).headers) })),
      );
    }
    const looseQuery = options.looseQuery?.[`${method.toUpperCase()} ${path}`] !== undefined;
    if (!looseQuery) {
      add(
        1,
        validParts.map((parts) => {
          const request = build('unknown query parameter', parts);
          return { ...request, url: `${request.url}${request.url.includes('?') ? '&' : '?'}${UNKNOWN_QUERY}=1` };
        }),
      );
    }
    pathParams.forEach((_, i) => {
      add(
        1,
        fc
          .tuple(validParts, junkText().filter(isPathSegment))
          .map(([parts, junk]) => build(`junk path parameter ${i}`, { ...parts, path: parts.path.map((v, j) => (j === i ? junk : v)) })),
      );
    });
    queryParams.forEach((p, i) => {
      add(
        1,
        fc
          .tuple(validParts, junkText())
          .map(([parts, junk]) => build(`junk query ${p.name}`, { ...parts, query: parts.query.map((v, j) => (j === i ? [junk] : v)) })),
      );
      if (p.required)
        add(
          1,
          validParts.map((parts) => build(`missing query ${p.name}`, { ...parts, query: parts.query.map((v, j) => (j === i ? [] : v)) })),
        );
    });
    if (bodySchema || BODY_METHODS.has(method)) {
      add(
        1,
        fc.tuple(validParts, fc.jsonValue({ maxDepth: 3 })).map(([parts, junk]) => build('junk JSON body', { ...parts, body: JSON.stringify(junk) })),
      );
      add(
        1,
        fc
          .tuple(validParts, fc.constantFrom('{', '{"a":', '[1,', 'nul', '{"a":1}}', '"unterminated'))
          .map(([parts, text]) => build('malformed JSON', { ...parts, body: text })),
      );
      add(
        1,
        validParts.map((parts) => build('body over the limit', { ...parts, body: JSON.stringify({ padding: 'x'.repeat(options.bodyLimitBytes + 1) }) })),
      );
      add(
        1,
        validParts.map((parts) => {
          const request = build('not JSON', { ...parts, body: '<signal/>' });
          return { ...request, headers: { ...request.headers, 'content-type': 'application/xml' } };
        }),
      );
      if (bodySchema)
        add(
          2,
          fc.tuple(validParts, bodyMutation(bodySchema)).map(([parts, mutate]) => build('mutated body', { ...parts, body: mutate(parts.body) })),
        );
    }
    return fc.oneof(...variants.map((arbitrary, i) => ({ arbitrary, weight: weights[i] as number })));
  }

  /** A mutation of a valid body: a required field dropped, an unknown one added, or a field of the wrong type. */
  function bodyMutation(schema: JsonSchema): fc.Arbitrary<(body: string | undefined) => string> {
    const resolved = arbitraries.resolve(schema);
    const properties = typeof resolved === 'object' ? Object.keys((resolved.properties as object | undefined) ?? {}) : [];
    const field = properties.length > 0 ? fc.constantFrom(...properties) : fc.constant('x');
    return fc.tuple(fc.constantFrom('drop', 'add', 'retype'), field, fc.jsonValue({ maxDepth: 1 })).map(([how, key, junk]) => (body) => {
      const value = JSON.parse(body ?? '{}') as unknown;
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return JSON.stringify(junk);
      const copy = { ...(value as Record<string, unknown>) };
      if (how === 'drop') delete copy[key];
      else if (how === 'add') copy[`unknown_${key}`] = junk;
      else copy[key] = junk;
      return JSON.stringify(copy);
    });
  }

  function credentialHeaders(operation: Operation): Record<string, string> {
    const requirement = (operation.security ?? doc.security ?? []).find((r) => Object.keys(r).length > 0);
    const headers: Record<string, string> = {};
    for (const schemeName of Object.keys(requirement ?? {})) {
      const scheme = doc.components?.securitySchemes?.[schemeName];
      const value = options.credentials?.[schemeName];
      if (!scheme || value === undefined) throw new Error(`no credential given for the security scheme ${schemeName}`);
      if (scheme.type === 'apiKey' && scheme.in === 'header' && scheme.name) headers[scheme.name.toLowerCase()] = value;
      else if (scheme.type === 'http' && scheme.scheme === 'bearer') headers.authorization = `Bearer ${value}`;
    }
    return headers;
  }

  /** A valid credential for every scheme given one, so a route keyed by any of them is reached. */
  function everyCredential(): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const [name, scheme] of Object.entries(doc.components?.securitySchemes ?? {})) {
      const value = options.credentials?.[name];
      if (value === undefined) continue;
      if (scheme.type === 'apiKey' && scheme.in === 'header' && scheme.name) headers[scheme.name.toLowerCase()] = value;
      else if (scheme.type === 'http' && scheme.scheme === 'bearer') headers.authorization = `Bearer ${value}`;
    }
    return headers;
  }

  function withoutCredentials(headers: Record<string, string>): Record<string, string> {
    const credentialNames = new Set(Object.keys(credentialHeadersOfAll()));
    return Object.fromEntries(Object.entries(headers).filter(([h]) => !credentialNames.has(h)));
  }

  function wrongCredentials(headers: Record<string, string>): Record<string, string> {
    const out = withoutCredentials(headers);
    for (const h of Object.keys(credentialHeadersOfAll())) out[h] = h === 'authorization' ? 'Bearer wrong-key' : 'wrong-key';
    return out;
  }

  function credentialHeadersOfAll(): Record<string, true> {
    const names: Record<string, true> = {};
    for (const scheme of Object.values(doc.components?.securitySchemes ?? {})) {
      if (scheme.type === 'apiKey' && scheme.name) names[scheme.name.toLowerCase()] = true;
      if (scheme.type === 'http') names.authorization = true;
    }
    return names;
  }

  /** Sends one request and checks the answer against the operation's document; returns the status. */
  async function send(request: GeneratedRequest, operation: Operation, label: string): Promise<number> {
    const controller = new AbortController();
    const res = await fetch(`${base}${request.url}`, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: controller.signal,
    });
    const where = `${label} (${request.kind}: ${request.method} ${request.url.slice(0, 300)}) answered ${res.status}`;
    const documented = operation.responses[String(res.status)] ?? operation.responses.default;
    const mediaType = (res.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
    if (mediaType === STREAM) {
      controller.abort();
    }
    const text = mediaType === STREAM ? '' : await res.text();
    // Refused by validation, unless something checked before it answered first: a rate limit, or
    // a credential the check cannot give (a console session).
    if (request.kind === 'unknown query parameter' && res.status !== 429 && res.status !== 401) {
      expect(res.status, `${where}, not 422; body: ${text.slice(0, 300)}`).toBe(422);
      expect(text.toLowerCase(), where).toContain('validation_error');
    }
    expect(documented, `${where}, a status the document does not name; body: ${text.slice(0, 300)}`).toBeDefined();
    const content = documented?.content;
    if (content === undefined) {
      expect(text, `${where} with a body the document does not describe`).toBe('');
      return res.status;
    }
    expect(Object.keys(content), `${where} as ${mediaType}`).toContain(mediaType);
    const schema = content[mediaType]?.schema;
    if (mediaType === 'application/json' && schema !== undefined) {
      const validate = validatorFor(`${label} ${res.status} ${mediaType}`, schema);
      const body = JSON.parse(text) as unknown;
      expect(validate(body), `${where} with a body that breaks its schema: ${ajv.errorsText(validate.errors)}; body: ${text.slice(0, 300)}`).toBe(true);
      if (request.kind === 'valid') expectParametersAccepted(body, where);
    }
    return res.status;
  }

  /**
   * A parameter the document accepts must pass the server's own validation: a `validation_error`
   * naming a path or query parameter means the two disagree. (Bodies may carry rules across
   * fields that JSON Schema does not express, so their refusals are left to the status check.)
   */
  function expectParametersAccepted(body: unknown, where: string): void {
    const envelope = body as { code?: unknown; details?: { path?: string }[] };
    if (typeof envelope.code !== 'string' || envelope.code.toLowerCase() !== 'validation_error') return;
    const parameters = (envelope.details ?? []).map((d) => d.path ?? '').filter((p) => /^(params|querystring)\./.test(p));
    expect(parameters, `${where}: the document accepts what the server refuses`).toEqual([]);
  }

  function validatorFor(key: string, schema: JsonSchema): ValidateFunction {
    let validate = validators.get(key);
    if (!validate) {
      // The document's components ride along so `#/components/schemas/…` resolves inside the schema.
      validate = ajv.compile(typeof schema === 'object' ? { ...schema, components: doc.components } : schema);
      validators.set(key, validate);
    }
    return validate;
  }
}

/**
 * The contract check as a vitest suite: builds the service, walks its document, prints the
 * statuses answered per operation and closes it.
 */
export function openApiContractSuite(name: string, options: ContractSuiteOptions): void {
  describe(`${name} OpenAPI contract`, () => {
    let app: App | undefined;
    afterAll(async () => {
      await app?.close();
    });

    it(`answers only documented statuses with documented bodies, ${options.runsPerOperation ?? 200} generated requests per operation`, async () => {
      app = await options.build();
      const report = await checkOpenApiContract(app, options);
      const lines = Object.entries(report).map(
        ([op, statuses]) =>
          `${op}: ${Object.entries(statuses)
            .map(([s, n]) => `${s}×${n}`)
            .join(' ')}`,
      );
      console.info(`${name} contract, statuses answered per operation:\n  ${lines.join('\n  ')}`);
      expect(Object.keys(report).length).toBeGreaterThan(0);
      for (const [op, statuses] of Object.entries(report)) {
        expect(
          Object.values(statuses).reduce((a, b) => a + b, 0),
          op,
        ).toBeGreaterThanOrEqual(options.runsPerOperation ?? 200);
      }
    }, 600_000);
  });
}

/** One request through node:http, which sends any method (fetch refuses TRACE). */
function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

/** Text that no documented parameter expects: empty-ish, hostile, unicode, or far too long. */
function junkText(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ minLength: 1, maxLength: 40 }),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
    fc.constantFrom('-1', '0', '1e309', 'NaN', 'null', 'true', '../../etc/passwd', '<script>', "' OR 1=1 --", '%00'),
    fc.integer({ min: 101, max: 5000 }).map((n) => 'x'.repeat(n)),
  );
}

function segmentText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Whether a value can travel as a path segment: not empty, and not `.` or `..`, which URL
 * parsing folds away even when percent-encoded (RFC 3986 §6.2.2.2), so no request can carry them.
 */
function isPathSegment(value: unknown): boolean {
  const text = segmentText(value);
  return text.length > 0 && text !== '.' && text !== '..';
}

function pathSegment(value: unknown): string {
  return encodeURIComponent(segmentText(value));
}

function queryValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(queryValue).join(',');
  // Numbers, booleans and objects as JSON writes them (1, true, {"a":1}).
  return JSON.stringify(value) ?? '';
}
