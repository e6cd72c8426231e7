import type { FastifyInstance, RouteOptions } from 'fastify';
import type { ErrorAnswer } from './error-handler.js';

/**
 * The methods each registered path answers, to tell "no such path" (404) from "not with this
 * method" (405 with `Allow`). Paths are Fastify's route patterns (`/signals/:id`, `/docs/*`);
 * a catch-all (`*`, such as CORS's OPTIONS route) adds its methods to a path another route
 * matches, never makes a path exist on its own.
 */
export class RouteMethods {
  private readonly byPattern = new Map<string, { pattern: RegExp; methods: Set<string>; isCatchAll: boolean }>();

  add(url: string, methods: string | string[]): void {
    let entry = this.byPattern.get(url);
    if (!entry) {
      entry = { pattern: patternOf(url), methods: new Set(), isCatchAll: url === '*' || url === '/*' };
      this.byPattern.set(url, entry);
    }
    for (const method of Array.isArray(methods) ? methods : [methods]) entry.methods.add(method.toUpperCase());
  }

  /** The methods `path` (a request path without its query) answers, sorted; none when no route matches it. */
  allowed(path: string): string[] {
    const methods = new Set<string>();
    const catchAll = new Set<string>();
    for (const { pattern, methods: own, isCatchAll } of this.byPattern.values()) {
      if (!pattern.test(path)) continue;
      for (const method of own) (isCatchAll ? catchAll : methods).add(method);
    }
    if (methods.size === 0) return [];
    for (const method of catchAll) methods.add(method);
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }
}

/** A route pattern as a regular expression over the request path: `:name` is one segment, `*` the rest. */
function patternOf(url: string): RegExp {
  let source = '';
  for (const part of url.split(/(:[\w-]+(?:\([^)]*\))?|\*)/)) {
    if (part === '*') source += '.*';
    else if (part.startsWith(':')) source += '[^/]+';
    else source += part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/**
 * Answers a request no route takes as soon as its headers are read, before any body is read or
 * parsed: 405 `method_not_allowed` with `Allow` when the path exists with other methods, else
 * 404 `not_found`. A body left unread closes the connection after the answer, so an unknown
 * route costs no parsing and no buffering.
 */
export function answerUnmatchedRoutes(app: FastifyInstance, answer: ErrorAnswer): void {
  const routes = new RouteMethods();
  app.addHook('onRoute', (route: RouteOptions) => routes.add(route.url, route.method));
  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404) return;
    const path = request.url.split('?')[0] ?? '';
    const shown = path.slice(0, 200);
    if (hasBody(request.headers)) reply.header('connection', 'close');
    const allow = routes.allowed(path);
    if (allow.length > 0) {
      return answer(request, reply, {
        status: 405,
        code: 'method_not_allowed',
        message: `${request.method} is not allowed on ${shown}; allowed: ${allow.join(', ')}`,
        headers: { allow: allow.join(', ') },
      });
    }
    return answer(request, reply, { status: 404, code: 'not_found', message: `no route ${request.method} ${shown}` });
  });
}

function hasBody(headers: { 'content-length'?: string; 'transfer-encoding'?: string }): boolean {
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
}
