/** What the REST adapters (OANDA v20, MetaApi) read from an HTTP answer the same way. */
import type { z } from 'zod';
import { BrokerError } from './errors.js';

/** An HTTP-date or ISO time as whole seconds from `nowMs` (0 when past), undefined when it does not parse. */
export function secondsUntil(dateText: string, nowMs: number): number | undefined {
  const at = Date.parse(dateText);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/** `prefix` + `path`, with the query's defined values as the query string. */
export function pathWithQuery(prefix: string, path: string, query: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, value);
  const search = params.toString();
  return `${prefix}${path}${search ? `?${search}` : ''}`;
}

/** Validates a JSON body against `schema`; a body that is not JSON or not of the shape is a `protocol` error. */
export function parseJsonBody<S extends z.ZodType>(schema: S, text: string, venue: string, path: string): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new BrokerError('protocol', `${venue} answered ${path} with a body that is not JSON`, { cause: err });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const where = first ? `${first.path.join('.')}: ${first.message}` : 'unexpected shape';
    throw new BrokerError('protocol', `${venue} answered ${path} with an unexpected body (${where})`, { cause: parsed.error });
  }
  return parsed.data;
}

/** An error body as `schema` (all fields optional) reads it; `{}` when it is not JSON or not of the shape. */
export function errorBodyOf<S extends z.ZodType<object>>(schema: S, text: string): Partial<z.output<S>> {
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}
