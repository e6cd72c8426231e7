import type { z } from 'zod';

/**
 * One call a client makes: the operation as the service's OpenAPI document names it (`path` with
 * its `{name}` parameters), the success status, and the schema its answer is checked with: the
 * very one the service serializes it with (a test holds each client's table against the document).
 * Nothing here needs Node: the console sends the same calls from the browser.
 */
export interface ServiceCall<S extends z.ZodType = z.ZodType> {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  status: number;
  schema: S;
}

/** The call's path with its `{name}` parameters filled in, each URI-encoded. */
export function callPath(call: ServiceCall, params: Record<string, string> = {}): string {
  return call.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${call.method} ${call.path}: no value for {${name}}`);
    return encodeURIComponent(value);
  });
}
