import type { FastifyRequest } from 'fastify';
import { AppError } from './errors.js';

/** Methods that change nothing: a browser's page may send them anywhere, as it may load an image. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Which browser pages may send a service state-changing requests: its own origin and
 * `allowedOrigins` (CORS_ORIGINS; `*` for any). A browser sends a POST of any page without a
 * preflight when it has no body or a form-like one (`fetch(url, { method: 'POST', mode:
 * 'no-cors' })`, a submitted form), so a page of another origin could start the strategy: CORS
 * only hides the answer from that page. Browsers name the page's origin in `Origin` on every
 * such request, which a page cannot forge; clients that are not browsers (curl, bots, providers'
 * webhooks) send neither it nor `Sec-Fetch-Site` and are not concerned.
 *
 * The service's own origin is the one whose host and port are the request's Host header, or
 * X-Forwarded-Host when the proxy that sent it is trusted (TRUST_PROXY): a page the service
 * served itself (the console at /ui) posts from there. The scheme is not compared, as a proxy
 * ending TLS speaks plain HTTP to the service. `Origin: null` (a sandboxed frame, a file, a
 * data: URL) is never allowed: any page can send it.
 */
export function originGuard(allowedOrigins: readonly string[]): (request: FastifyRequest) => Promise<void> {
  const allowsAny = allowedOrigins.includes('*');
  const allowed = new Set(allowedOrigins.map(originOf).filter((o) => o !== ''));
  return async (request) => {
    if (SAFE_METHODS.has(request.method)) return;
    const origin = request.headers.origin;
    if (origin !== undefined) {
      if (origin !== 'null' && (allowsAny || allowed.has(originOf(origin)) || isOwnOrigin(origin, request.host))) return;
      throw new AppError(
        'forbidden',
        `a ${request.method} from a page of another origin (${origin.slice(0, 100)}); this service takes one only from its own origin and CORS_ORIGINS`,
      );
    }
    if (request.headers['sec-fetch-site'] === 'cross-site') {
      throw new AppError('forbidden', `a ${request.method} from a page of another site; this service takes one only from its own origin and CORS_ORIGINS`);
    }
  };
}

/** `scheme://host[:port]` as browsers write it (lower case, no default port); '' for what is not an origin. */
function originOf(text: string): string {
  try {
    const url = new URL(text);
    return url.host === '' ? '' : url.origin;
  } catch {
    return '';
  }
}

/** Whether `origin` names `host` (host[:port], as in a Host header) with the origin's scheme's default port understood. */
function isOwnOrigin(origin: string, host: string): boolean {
  try {
    const url = new URL(origin);
    return url.host !== '' && url.host === new URL(`${url.protocol}//${host}`).host;
  } catch {
    return false;
  }
}
