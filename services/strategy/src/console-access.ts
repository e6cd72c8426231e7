import fastifyCookie from '@fastify/cookie';
import { AppError, type App } from '@fxdesk/core';
import { ErrorEnvelopeSchema } from '@fxdesk/schemas';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ConsoleSession, ConsoleSessions } from './console-sessions.js';

/** The session cookie: signed, HttpOnly, SameSite=Strict, Secure in production. */
export const SESSION_COOKIE = 'fxdesk_console';

/** Who may call a console route: a session (the default), anyone (the session's own routes), or anyone without a CSRF token (login). */
export type ConsoleAccess = 'session' | 'public' | 'login';

declare module 'fastify' {
  interface FastifyContextConfig {
    consoleAccess?: ConsoleAccess;
  }
}

export interface ConsoleAccessOptions {
  sessions: ConsoleSessions;
  /** Mark the cookie Secure (NODE_ENV=production: the console is behind HTTPS). */
  secureCookie: boolean;
}

/** The refusals of the console's access rules (console-access.ts), on every console route. */
export const CONSOLE_REFUSALS = {
  401: ErrorEnvelopeSchema.describe('UNAUTHORIZED: CONSOLE_PASSWORD is set and the request carries no live session (POST /console/login)'),
  403: ErrorEnvelopeSchema.describe(
    'FORBIDDEN: without CONSOLE_PASSWORD, a client or host name that is not loopback; with it, a state-changing request without its session’s X-CSRF-Token',
  ),
};

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const LOOPBACK_ADDRESS = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;
const LOOPBACK_HOST = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])(:\d{1,5})?$/i;

/**
 * Puts every console route registered in `scope` after this call behind the console's access
 * rules. With CONSOLE_PASSWORD: a route needs the signed session cookie of a login (401
 * otherwise), and a state-changing request also its session's X-CSRF-Token (403), except the
 * routes that open and read the session. Without it (development only): loopback clients only,
 * and only under a loopback host name, so neither another machine nor a web page that rebinds
 * its DNS name to 127.0.0.1 reads the other services' data through the strategy's keys (403);
 * and a state-changing request from a browser must come from a page of the same origin (403).
 */
export async function registerConsoleAccess(scope: App, options: ConsoleAccessOptions): Promise<void> {
  const { sessions } = options;
  // One secret for every replica (kept in the store with the sessions), so a cookie signed by one is valid on all.
  await scope.register(fastifyCookie, { secret: await sessions.cookieSecret() });
  scope.addHook('onRequest', async (request) => {
    if (!sessions.loginRequired) {
      const host = request.headers.host ?? '';
      if (!LOOPBACK_ADDRESS.test(request.ip) || !LOOPBACK_HOST.test(host)) {
        throw new AppError('forbidden', 'without CONSOLE_PASSWORD the console answers only on loopback (http://localhost…); set CONSOLE_PASSWORD to open it');
      }
      if (!SAFE_METHODS.has(request.method) && !isSameOrigin(request.headers.origin, host)) {
        throw new AppError('forbidden', 'a state-changing console request from a page of another origin');
      }
      return;
    }
    const access = request.routeOptions.config.consoleAccess ?? 'session';
    if (access === 'login') return;
    const session = await sessionOf(request, sessions);
    if (!session) {
      if (access === 'public') return;
      throw new AppError('unauthorized', 'log in to the console first (POST /console/login)');
    }
    if (!SAFE_METHODS.has(request.method) && !sessions.csrfMatches(session, request.headers['x-csrf-token'])) {
      throw new AppError('forbidden', 'missing or wrong X-CSRF-Token: send the csrf_token GET /console/session answers');
    }
  });
}

/** Whether a browser's Origin header names the host it asks (no header: not a browser's cross-site request). */
function isSameOrigin(origin: string | undefined, host: string): boolean {
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

/** The live session of the request's cookie, if any. */
export async function sessionOf(request: FastifyRequest, sessions: ConsoleSessions): Promise<ConsoleSession | undefined> {
  const cookie = request.cookies[SESSION_COOKIE];
  if (cookie === undefined) return undefined;
  const unsigned = request.unsignCookie(cookie);
  return unsigned.valid && unsigned.value !== null ? sessions.find(unsigned.value) : undefined;
}

export function setSessionCookie(reply: FastifyReply, session: ConsoleSession, secure: boolean, lifetimeMs: number): void {
  reply.setCookie(SESSION_COOKIE, session.id, { ...cookieAttributes(secure), signed: true, maxAge: Math.floor(lifetimeMs / 1000) });
}

export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  reply.clearCookie(SESSION_COOKIE, cookieAttributes(secure));
}

function cookieAttributes(secure: boolean) {
  return { path: '/', httpOnly: true, sameSite: 'strict' as const, secure };
}
