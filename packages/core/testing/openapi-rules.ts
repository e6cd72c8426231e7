import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../src/service.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

type Schema = Record<string, unknown> | boolean;

/** Compiling a document's schemas and building a service take seconds on a busy machine. */
const TIMEOUT_MS = 60_000;

interface Operation {
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema; description?: string }[];
  requestBody?: { content: Record<string, { schema?: Schema }> };
}

interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

/** A request by its parts, as a rule of the document judges it: `operation` is `POST /path` as in the document. */
export interface RuleRequest {
  /** What the request shows, for the test's name. */
  what: string;
  operation: string;
  body?: unknown;
  query?: Record<string, string>;
}

export interface OpenApiRulesOptions {
  /** Builds the service's app as server.ts would, with test config and deps. */
  build: () => Promise<App>;
  /** Headers that open the kit's routes (/docs/json) where the service keys them. */
  kitRouteHeaders?: Record<string, string>;
  /** Headers that pass the service's auth on its own routes. */
  headers?: Record<string, string>;
  /** Requests the server accepts: the document must accept them too, and the server must not answer validation_error. */
  accept?: RuleRequest[];
  /** Requests the server refuses with 422: the document must refuse them too. */
  reject?: RuleRequest[];
  /**
   * Operations whose JSON body, built from the document's own examples (as Swagger UI's "Try it
   * out" and Schemathesis build one), must pass both the document and the server's validation.
   */
  sampled?: string[];
  /**
   * Rules OpenAPI cannot state (one query parameter only with another: each parameter has a
   * schema of its own): the server refuses `request` with 422, and the parameter's description says so.
   */
  described?: { request: RuleRequest; parameter: string; says: RegExp }[];
}

/** Every `pattern` in the document (and every patternProperties key), with where it is. */
function patterns(node: unknown, where = '#'): { where: string; pattern: string }[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => patterns(item, `${where}/${i}`));
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) => {
    const found = key === 'pattern' && typeof value === 'string' ? [{ where, pattern: value }] : [];
    const keys = key === 'patternProperties' && value !== null && typeof value === 'object' ? Object.keys(value).map((p) => ({ where, pattern: p })) : [];
    return [...found, ...keys, ...patterns(value, `${where}/${key}`)];
  });
}

const SCHEMA_WORDS = ['type', '$ref', 'pattern', 'enum', 'const', 'properties', 'anyOf', 'oneOf', 'allOf', 'format'];

/** Every schema of the document that documents an `example` or `examples`, with where it is. */
function documentedExamples(node: unknown, where = '#'): { where: string; schema: Record<string, unknown>; example: unknown }[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => documentedExamples(item, `${where}/${i}`));
  if (node === null || typeof node !== 'object') return [];
  const record = node as Record<string, unknown>;
  const isSchema = SCHEMA_WORDS.some((word) => word in record);
  const own: { where: string; schema: Record<string, unknown>; example: unknown }[] = [];
  if (isSchema && 'example' in record) own.push({ where, schema: record, example: record.example });
  if (isSchema && Array.isArray(record.examples)) for (const example of record.examples) own.push({ where, schema: record, example });
  return [...own, ...Object.entries(record).flatMap(([key, value]) => documentedExamples(value, `${where}/${key}`))];
}

/**
 * A value built from a schema's documentation: its example, else its default, const or first
 * enum value; an object of its required properties and of those documenting an example; an
 * array of one item. Undefined where the document gives nothing to build from (an object, when
 * it cannot build one of its required properties).
 */
function sample(schema: Schema | undefined, components: OpenApiDocument['components'], depth = 0): unknown {
  let s = schema;
  // An example beside a $ref documents the value at this place: it wins over the target's.
  while (typeof s === 'object' && typeof s.$ref === 'string' && !('example' in s)) s = components?.schemas?.[s.$ref.split('/').at(-1) ?? ''];
  if (typeof s !== 'object' || depth > 8) return undefined;
  if ('example' in s) return s.example;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if (s.default !== undefined) return s.default;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  for (const key of ['anyOf', 'oneOf'] as const) if (Array.isArray(s[key])) return sample((s[key] as Schema[])[0], components, depth + 1);
  if (s.type === 'array') {
    const item = sample(s.items as Schema | undefined, components, depth + 1);
    return item === undefined ? undefined : [item];
  }
  if (s.type === 'object' || s.properties !== undefined) {
    const required = new Set((s.required as string[] | undefined) ?? []);
    const out: Record<string, unknown> = {};
    for (const [name, property] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
      const value = sample(property, components, depth + 1);
      if (value === undefined && required.has(name)) return undefined;
      if (value !== undefined && (required.has(name) || documentsExample(property, components))) out[name] = value;
    }
    return out;
  }
  return undefined;
}

function documentsExample(schema: Schema, components: OpenApiDocument['components']): boolean {
  let s: Schema | undefined = schema;
  while (typeof s === 'object' && typeof s.$ref === 'string' && !('example' in s)) s = components?.schemas?.[s.$ref.split('/').at(-1) ?? ''];
  return typeof s === 'object' && ('example' in s || Array.isArray(s.examples));
}

/**
 * The rules a service's OpenAPI document states, checked from its own `/docs/json` with ajv
 * (draft 2020-12, as OpenAPI 3.1 uses), so a client generated from it knows them:
 * - no pattern uses `\d` (outside JavaScript it can match any Unicode digit: write `[0-9]`);
 * - every documented example is valid against the schema it documents;
 * - each `reject` request (one the server refuses with 422) breaks the documented request
 *   schema, and each `accept` request passes it and is not a validation_error on the server.
 */
export function openApiRulesSuite(name: string, options: OpenApiRulesOptions): void {
  describe(`${name}: the rules its OpenAPI document states`, () => {
    let app: App;
    let doc: OpenApiDocument;
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    const compiled = new Map<unknown, ValidateFunction>();
    const validatorOf = (schema: Schema): ValidateFunction => {
      let validate = compiled.get(schema);
      if (validate === undefined) {
        // The document's components ride along so `#/components/schemas/…` resolves inside the schema.
        validate = ajv.compile(typeof schema === 'object' ? { ...schema, components: doc.components } : schema);
        compiled.set(schema, validate);
      }
      return validate;
    };

    beforeAll(async () => {
      app = await options.build();
      const res = await app.inject({ method: 'GET', url: '/docs/json', headers: options.kitRouteHeaders });
      expect(res.statusCode).toBe(200);
      doc = res.json<OpenApiDocument>();
    }, TIMEOUT_MS);
    afterAll(() => app?.close());

    /** The document's verdict on a request: the reasons it breaks the documented schemas (none: valid). */
    function documentVerdict(request: RuleRequest): string[] {
      const [method = '', path = ''] = request.operation.split(' ');
      const operation = doc.paths[path]?.[method.toLowerCase()];
      expect(operation, `${request.operation} is in the document`).toBeDefined();
      const problems: string[] = [];
      if (request.body !== undefined) {
        const schema = operation?.requestBody?.content['application/json']?.schema;
        expect(schema, `${request.operation} documents a JSON body`).toBeDefined();
        const validate = validatorOf(schema as Schema);
        if (!validate(request.body)) problems.push(`body: ${ajv.errorsText(validate.errors)}`);
      }
      const query = request.query ?? {};
      for (const parameter of (operation?.parameters ?? []).filter((p) => p.in === 'query')) {
        const value = query[parameter.name];
        if (value === undefined) {
          if (parameter.required) problems.push(`query: ${parameter.name} is required`);
          continue;
        }
        // A query value is text; a number or boolean parameter reads it as the server does.
        const type = typeof parameter.schema === 'object' ? parameter.schema.type : undefined;
        const read = (type === 'integer' || type === 'number') && value.trim() !== '' ? Number(value) : value;
        const validate = validatorOf(parameter.schema ?? true);
        if (!validate(read)) problems.push(`query ${parameter.name}: ${ajv.errorsText(validate.errors)}`);
      }
      return problems;
    }

    async function serverAnswer(request: RuleRequest): Promise<{ status: number; code: string | undefined }> {
      const [method = '', path = ''] = request.operation.split(' ');
      const res = await app.inject({
        method: method as 'GET',
        url: path,
        query: request.query,
        headers: options.headers,
        ...(request.body === undefined ? {} : { payload: request.body as object }),
      });
      let code: string | undefined;
      try {
        code = res.json<{ code?: string }>().code;
      } catch {
        code = undefined;
      }
      return { status: res.statusCode, code };
    }

    it('writes no pattern with \\d (outside JavaScript it is not [0-9])', { timeout: TIMEOUT_MS }, () => {
      const found = patterns(doc).filter((p) => /\\d/.test(p.pattern.replace(/\\\\/g, '')));
      expect(found).toEqual([]);
    });

    it('documents only examples that its own schemas accept', { timeout: TIMEOUT_MS }, () => {
      const examples = documentedExamples(doc.paths).concat(documentedExamples(doc.components ?? {}, '#/components'));
      expect(examples.length).toBeGreaterThan(0);
      const broken = examples.filter(({ schema, example }) => !validatorOf(schema)(example)).map(({ where, example }) => ({ where, example }));
      expect(broken).toEqual([]);
    });

    for (const request of options.reject ?? []) {
      it(`refuses in the document what the server refuses: ${request.operation} ${request.what}`, { timeout: TIMEOUT_MS }, async () => {
        expect((await serverAnswer(request)).status, 'the server refuses it').toBe(422);
        expect(documentVerdict(request), 'the document refuses it').not.toEqual([]);
      });
    }

    it('documents examples that make a valid body together, on every operation that takes one', { timeout: TIMEOUT_MS }, () => {
      const broken: { operation: string; body: unknown; problems: string[] }[] = [];
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(item)) {
          const schema = op.requestBody?.content['application/json']?.schema;
          if (schema === undefined) continue;
          const operation = `${method.toUpperCase()} ${path}`;
          const body = sample(schema, doc.components);
          if (body === undefined) continue; // the document gives too little to build one from
          const problems = documentVerdict({ what: 'from its examples', operation, body });
          if (problems.length > 0) broken.push({ operation, body, problems });
        }
      }
      expect(broken).toEqual([]);
    });

    for (const operation of options.sampled ?? []) {
      it(`documents examples that make a valid request together: ${operation}`, { timeout: TIMEOUT_MS }, async () => {
        const [method = '', path = ''] = operation.split(' ');
        const body = sample(doc.paths[path]?.[method.toLowerCase()]?.requestBody?.content['application/json']?.schema, doc.components);
        const request = { what: 'from its examples', operation, body };
        expect(documentVerdict(request), JSON.stringify(body)).toEqual([]);
        const answer = await serverAnswer(request);
        expect(answer.code?.toLowerCase(), `the server's answer to ${JSON.stringify(body)}`).not.toBe('validation_error');
      });
    }

    for (const { request, parameter, says } of options.described ?? []) {
      it(`states in ${parameter}'s description what the server refuses: ${request.operation} ${request.what}`, { timeout: TIMEOUT_MS }, async () => {
        expect((await serverAnswer(request)).status, 'the server refuses it').toBe(422);
        const [method = '', path = ''] = request.operation.split(' ');
        const documented = doc.paths[path]?.[method.toLowerCase()]?.parameters?.find((p) => p.name === parameter);
        expect(documented?.description).toMatch(says);
      });
    }

    for (const request of options.accept ?? []) {
      it(`accepts in the document what the server accepts: ${request.operation} ${request.what}`, { timeout: TIMEOUT_MS }, async () => {
        expect(documentVerdict(request)).toEqual([]);
        expect((await serverAnswer(request)).code?.toLowerCase(), 'the server does not refuse it as invalid').not.toBe('validation_error');
      });
    }
  });
}
