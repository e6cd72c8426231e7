import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { envelope, type ErrorCodeCase } from './errors.js';

/**
 * How long a client has to send a whole request, headers and body, before it is answered 408:
 * a 1 MiB body (BODY_LIMIT_BYTES' default) at 35 KiB/s, far slower than any LAN or broadband
 * link. A socket that stops half-way through its body holds its buffer only this long.
 */
export const REQUEST_TIMEOUT_MS = 30_000;
/** How long a client has to send the request line and headers (a few hundred bytes). */
export const HEADERS_TIMEOUT_MS = 10_000;
/** How often Node looks for requests past those times, so one is cut at most this late. */
export const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

interface ClientError extends Error {
  code?: string;
  /** llhttp's fixed description of a parse error, e.g. `Duplicate Content-Length`. */
  reason?: string;
}

/** Status, code and message for an error Node's HTTP parser raises before any route is found. */
export function classifyClientError(err: ClientError): { status: number; code: string; message: string } {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, code: 'request_timeout', message: 'the request did not arrive in time' };
  }
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, code: 'headers_too_large', message: 'the request headers are larger than the limit' };
  }
  const reason = typeof err.reason === 'string' && err.reason.length > 0 ? `: ${err.reason}` : '';
  return { status: 400, code: 'bad_request', message: `the request is not valid HTTP${reason}` };
}

const REASON: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/**
 * Fastify's `clientErrorHandler`: a request Node's parser refuses (a duplicate Content-Length,
 * CR or LF inside a header, a byte a URL cannot hold, headers over the limit) or one that did
 * not arrive in time gets the error envelope, written on the socket as a whole HTTP answer, and
 * the connection is closed: after such an error the byte stream cannot be trusted.
 */
export function clientErrorHandler(codeCase: ErrorCodeCase, now: () => number) {
  return function handleClientError(this: FastifyInstance, err: ClientError, socket: Socket): void {
    // A reset or closed socket has no one to answer.
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const { status, code, message } = classifyClientError(err);
    this.log.info({ code, status, parserCode: err.code }, message);
    // Node's own rule: answer only where no answer has begun on this socket.
    const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || answering?.headersSent === true) {
      socket.destroy();
      return;
    }
    const body = JSON.stringify(envelope(code, message, { codeCase, now: new Date(now()) }));
    const head = [
      `HTTP/1.1 ${status} ${REASON[status] ?? 'Bad Request'}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
    ].join('\r\n');
    socket.end(`${head}\r\n\r\n${body}`, () => socket.destroy());
  };
}
