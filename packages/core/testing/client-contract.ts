import { expect } from 'vitest';
import { z } from 'zod';
import type { App } from '../src/service.js';

/** One call a client makes: the operation as the OpenAPI document names it, and the schema the client checks its answer with. */
export interface ClientCall {
  method: 'GET' | 'POST' | 'DELETE';
  /** The path as in the document, e.g. `/v1/signals/{signal_id}`. */
  path: string;
  /** The success status whose body the client reads. */
  status: number;
  schema: z.ZodType;
}

interface DocumentedResponse {
  content?: Record<string, { schema?: { $ref?: string } }>;
}

/**
 * Proves that a client validates each answer with the very schema the service serializes it
 * with: every schema a client checks answers against is a named one (`.meta({ id })`), and the
 * service's OpenAPI document names that same schema for that operation and status.
 */
export async function expectClientMatchesDocument(app: App, calls: Record<string, ClientCall>, headers: Record<string, string> = {}): Promise<void> {
  const doc = (await app.inject({ method: 'GET', url: '/docs/json', headers })).json<{
    paths: Record<string, Record<string, { responses: Record<string, DocumentedResponse> }>>;
  }>();
  for (const [name, call] of Object.entries(calls)) {
    const id = z.globalRegistry.get(call.schema)?.id;
    expect(id, `${name}: the client's schema has no id, so no document can name it`).toBeTypeOf('string');
    const operation = doc.paths[call.path]?.[call.method.toLowerCase()];
    expect(operation, `${name}: ${call.method} ${call.path} is not in the document`).toBeDefined();
    const ref = operation?.responses[String(call.status)]?.content?.['application/json']?.schema?.$ref;
    expect(ref, `${name}: ${call.method} ${call.path} ${call.status}`).toBe(`#/components/schemas/${id}`);
  }
}
