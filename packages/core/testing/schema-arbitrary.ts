import fc from 'fast-check';

/** A JSON Schema (draft 2020-12, as OpenAPI 3.1 documents hold them), read loosely. */
export type JsonSchema = { [keyword: string]: unknown } | boolean;

type SchemaObject = { [keyword: string]: unknown };

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/**
 * fast-check arbitraries for the values a JSON Schema accepts, for the subset of keywords zod
 * emits (type, properties, required, additionalProperties, propertyNames, items, prefixItems,
 * enum, const, anyOf, oneOf, allOf, bounds, lengths, pattern, format) with `$ref`s resolved in
 * the document's `components`. A schema's `example` is offered often, so that generated requests
 * reach the success paths as well as the refusals.
 */
export class SchemaArbitraries {
  constructor(private readonly components: { schemas?: Record<string, JsonSchema> } = {}) {}

  /** Follows `$ref: '#/components/schemas/Name'` until a schema with content. */
  resolve(schema: JsonSchema): JsonSchema {
    let current = schema;
    for (let hops = 0; typeof current === 'object' && typeof current.$ref === 'string'; hops++) {
      if (hops > 20) throw new Error(`$ref cycle at ${current.$ref}`);
      const name = current.$ref.replace(/^#\/components\/schemas\//, '');
      const target = this.components.schemas?.[name];
      if (target === undefined) throw new Error(`unresolved $ref ${current.$ref}`);
      current = target;
    }
    return current;
  }

  /** Values the schema accepts. */
  valid(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
    const s = this.resolve(schema);
    if (s === true || (typeof s === 'object' && Object.keys(s).length === 0)) return fc.jsonValue({ maxDepth: 2 });
    if (s === false) return fc.constant(undefined);
    const generated = this.generated(s, depth);
    return 'example' in s ? fc.oneof({ arbitrary: fc.constant(s.example), weight: 3 }, { arbitrary: generated, weight: 1 }) : generated;
  }

  private generated(s: SchemaObject, depth: number): fc.Arbitrary<unknown> {
    if ('const' in s) return fc.constant(s.const);
    if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
    for (const key of ['anyOf', 'oneOf'] as const) {
      const options = s[key];
      if (Array.isArray(options)) return fc.oneof(...options.map((o: JsonSchema) => this.valid(o, depth + 1)));
    }
    if (Array.isArray(s.allOf)) return this.valid(this.mergeAllOf(s.allOf as JsonSchema[]), depth);
    const type = s.type ?? (s.properties !== undefined ? 'object' : undefined);
    if (Array.isArray(type)) return fc.oneof(...type.map((t: string) => this.generated({ ...s, type: t }, depth)));
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return integers(s);
      case 'number':
        return numbers(s);
      case 'string':
        return strings(s);
      case 'array':
        return this.arrays(s, depth);
      case 'object':
        return this.objects(s, depth);
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  }

  private mergeAllOf(parts: JsonSchema[]): JsonSchema {
    const merged: SchemaObject = { type: 'object', properties: {}, required: [] };
    for (const part of parts.map((p) => this.resolve(p))) {
      if (typeof part !== 'object') continue;
      Object.assign(merged.properties as SchemaObject, part.properties ?? {});
      (merged.required as string[]).push(...((part.required as string[] | undefined) ?? []));
      if (part.additionalProperties === false) merged.additionalProperties = false;
    }
    return merged;
  }

  private arrays(s: SchemaObject, depth: number): fc.Arbitrary<unknown> {
    if (Array.isArray(s.prefixItems)) return fc.tuple(...(s.prefixItems as JsonSchema[]).map((item) => this.valid(item, depth + 1)));
    const minLength = (s.minItems as number | undefined) ?? 0;
    const maxLength = Math.max(minLength, Math.min((s.maxItems as number | undefined) ?? 4, depth > 2 ? minLength : 4));
    return fc.array(this.valid((s.items as JsonSchema | undefined) ?? true, depth + 1), { minLength, maxLength });
  }

  private objects(s: SchemaObject, depth: number): fc.Arbitrary<unknown> {
    const properties = (s.properties as Record<string, JsonSchema> | undefined) ?? {};
    const names = Object.keys(properties);
    if (names.length === 0) {
      const extra = s.additionalProperties;
      if (extra === false || depth > 3) return fc.constant({});
      const keys = s.propertyNames ? strings(this.resolve(s.propertyNames as JsonSchema) as SchemaObject) : fc.string({ minLength: 1, maxLength: 12 });
      return fc.dictionary(keys, this.valid(typeof extra === 'object' && extra !== null ? (extra as JsonSchema) : true, depth + 1), { maxKeys: 3 });
    }
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const name of names) model[name] = this.valid(properties[name] as JsonSchema, depth + 1);
    const requiredKeys = ((s.required as string[] | undefined) ?? []).filter((k) => names.includes(k));
    return fc.record(model, { requiredKeys });
  }
}

function integers(s: SchemaObject): fc.Arbitrary<number> {
  const min = Math.max(bound(s.minimum, s.exclusiveMinimum, 1) ?? -1_000_000, Number.MIN_SAFE_INTEGER);
  const max = Math.min(bound(s.maximum, s.exclusiveMaximum, -1) ?? 1_000_000, Number.MAX_SAFE_INTEGER);
  const near = fc.integer({ min: clamp(min), max: clamp(Math.min(max, min + 100)) });
  const wide = fc.integer({ min: clamp(min), max: clamp(max) });
  return fc.oneof(near, wide, fc.constantFrom(min, max));
}

function numbers(s: SchemaObject): fc.Arbitrary<number> {
  const min = typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum : -1e9;
  const max = typeof s.maximum === 'number' ? s.maximum : typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum : 1e9;
  return fc.double({
    min,
    max,
    minExcluded: typeof s.exclusiveMinimum === 'number',
    maxExcluded: typeof s.exclusiveMaximum === 'number',
    noNaN: true,
    noDefaultInfinity: true,
  });
}

function strings(s: SchemaObject): fc.Arbitrary<string> {
  const minLength = (s.minLength as number | undefined) ?? 0;
  const maxLength = (s.maxLength as number | undefined) ?? Math.max(minLength, 40);
  const fits = (v: string) => v.length >= minLength && v.length <= maxLength;
  switch (s.format) {
    case 'uuid':
      return fc.uuid();
    case 'date-time':
      return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'email':
      return fc.emailAddress().filter(fits);
    default:
      break;
  }
  if (typeof s.pattern === 'string') return fc.stringMatching(new RegExp(s.pattern)).filter(fits);
  return fc.string({ minLength, maxLength: Math.min(maxLength, 200) });
}

/** The inclusive integer bound from an inclusive and an exclusive one. */
function bound(inclusive: unknown, exclusive: unknown, step: number): number | undefined {
  if (typeof inclusive === 'number') return step > 0 ? Math.ceil(inclusive) : Math.floor(inclusive);
  if (typeof exclusive === 'number') return (step > 0 ? Math.floor(exclusive) : Math.ceil(exclusive)) + step;
  return undefined;
}

function clamp(n: number): number {
  return Math.min(Math.max(n, INT32.min), INT32.max);
}
