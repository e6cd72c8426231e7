import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { AppError, envelope, type ErrorCodeCase, type ErrorDetail } from './errors.js';

export interface Classified {
  status: number;
  code: string;
  message: string;
  details?: ErrorDetail[];
  headers?: Record<string, string>;
}

const FASTIFY_CODES: Record<string, Omit<Classified, 'message'> & { message?: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'invalid_json', message: 'the request body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'invalid_json', message: 'the request body is empty but declared as JSON' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'payload_too_large', message: 'the request body is larger than the limit' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'unsupported_media_type', message: 'send the body as application/json' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'bad_request', message: 'the content-length does not match the body' },
  FST_ERR_BAD_URL: { status: 400, code: 'bad_request', message: 'the URL is not valid: a path segment has a malformed percent-encoding' },
};

const GENERIC_CODE_BY_STATUS: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  408: 'request_timeout',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  431: 'headers_too_large',
};

/** Maps any error thrown in a request to its status, code and a message safe to show. */
export function classifyError(err: unknown): Classified {
  if (err instanceof AppError) {
    return { status: err.statusCode, code: err.code, message: err.message, details: err.details, headers: err.headers };
  }
  const e = err as Partial<FastifyError> & { validationContext?: string };
  if (hasZodFastifySchemaValidationErrors(e)) {
    const where = e.validationContext ?? 'body';
    const details = (e.validation ?? []).map((v) => ({
      path: [where, ...v.instancePath.split('/').filter((s) => s.length > 0)].join('.'),
      message: v.message ?? 'is invalid',
    }));
    const first = details[0];
    const message = first ? `${first.path}: ${first.message}` : 'the request is invalid';
    return { status: 422, code: 'validation_error', message, details };
  }
  if (e && typeof e === 'object' && typeof e.code === 'string' && e.code in FASTIFY_CODES) {
    const known = FASTIFY_CODES[e.code] as Classified;
    return { ...known, message: known.message ?? String(e.message) };
  }
  if (e instanceof SyntaxError && (e as { statusCode?: number }).statusCode === 400) {
    return { status: 400, code: 'invalid_json', message: 'the request body is not valid JSON' };
  }
  if (e && typeof e === 'object' && isResponseSerializationError(e)) {
    return { status: 500, code: 'internal_error', message: 'internal error' };
  }
  const statusCode = (e as { statusCode?: unknown } | undefined)?.statusCode;
  const status = typeof statusCode === 'number' ? statusCode : 500;
  if (status >= 400 && status < 500) {
    return { status, code: GENERIC_CODE_BY_STATUS[status] ?? 'bad_request', message: String((e as Error).message ?? 'bad request') };
  }
  return { status: status >= 500 && status <= 599 ? status : 500, code: 'internal_error', message: 'internal error' };
}

/** Answers a classified error with the envelope, its status and its headers. */
export type ErrorAnswer = (request: FastifyRequest, reply: FastifyReply, classified: Classified) => FastifyReply;

export function errorAnswer(codeCase: ErrorCodeCase, now: () => number): ErrorAnswer {
  return (request, reply, c) => {
    for (const [name, value] of Object.entries(c.headers ?? {})) reply.header(name, value);
    return reply
      .status(c.status)
      .type('application/json; charset=utf-8')
      .send(envelope(c.code, c.message, { requestId: request.id, details: c.details, codeCase, now: new Date(now()) }));
  };
}

/**
 * Fastify's `frameworkErrors`: the errors its router raises before any route is found (a
 * malformed percent-encoding), answered with the envelope instead of Fastify's own body.
 */
export function frameworkErrorHandler(answer: ErrorAnswer) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const classified = classifyError(err);
    request.log.info({ code: classified.code, status: classified.status }, classified.message);
    void answer(request, reply, classified);
  };
}

export function installErrorHandlers(app: FastifyInstance, answer: ErrorAnswer): void {
  app.setErrorHandler((err, request, reply) => {
    const classified = classifyError(err);
    if (classified.status >= 500) request.log.error({ err }, 'request failed');
    else request.log.info({ code: classified.code, status: classified.status }, classified.message);
    return answer(request, reply, classified);
  });

  app.setNotFoundHandler((request, reply) =>
    answer(request, reply, { status: 404, code: 'not_found', message: `no route ${request.method} ${(request.url.split('?')[0] ?? '').slice(0, 200)}` }),
  );
}
