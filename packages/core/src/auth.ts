import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './errors.js';
import { documentAnswer } from './openapi.js';

export interface ApiKeyOptions {
  /** Header that carries the key, e.g. `x-api-key` or `x-internal-api-key`. */
  header: string;
  /** The configured key. Undefined means no authentication applies. */
  key: string | undefined;
  /** Also accept `Authorization: Bearer <key>`. */
  allowBearer?: boolean;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Compares two secrets in constant time: both are hashed to equal-length digests first, so
 * neither the content nor the length of the configured key leaks through timing.
 */
export function secretsEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

function presentedKey(request: FastifyRequest, options: ApiKeyOptions): string | undefined {
  const fromHeader = request.headers[options.header.toLowerCase()];
  if (typeof fromHeader === 'string' && fromHeader.length > 0) return fromHeader;
  if (options.allowBearer) {
    const authorization = request.headers.authorization;
    const match = typeof authorization === 'string' ? /^Bearer\s+(.+)$/i.exec(authorization) : null;
    if (match) return (match[1] as string).trim();
  }
  return undefined;
}

/**
 * An onRequest hook that answers 401 unless the request carries the configured key. It logs
 * only whether a key was present, never its value.
 */
export function requireApiKey(options: ApiKeyOptions) {
  const expected = options.key;
  return async function apiKeyHook(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    if (expected === undefined) return;
    const given = presentedKey(request, options);
    if (given !== undefined && secretsEqual(given, expected)) return;
    request.log.warn({ keyPresent: given !== undefined }, 'rejected request without a valid API key');
    throw new AppError('unauthorized', given === undefined ? `missing ${options.header} header` : `invalid ${options.header}`);
  };
}

export interface ProtectOptions extends ApiKeyOptions {
  /** The OpenAPI security schemes (declared in buildService's `securitySchemes`) any one of which authenticates. */
  schemes: string[];
}

/**
 * Puts every route registered in `scope` after this call behind the key, and documents it on each
 * route: its security requirement and its 401 answer. With no key configured, nothing is
 * required and nothing is declared.
 */
export function protectRoutes(scope: FastifyInstance, options: ProtectOptions): void {
  if (options.key === undefined) return;
  scope.addHook('onRequest', requireApiKey(options));
  const security = options.schemes.map((scheme) => ({ [scheme]: [] }));
  scope.addHook('onRoute', (route) => {
    const schema = (route.schema ??= {});
    if (schema.hide) return;
    schema.security = security;
    documentAnswer(schema, 401, `Missing or invalid ${options.header}${options.allowBearer ? ' (or Authorization: Bearer)' : ''} (\`unauthorized\`)`);
  });
}
