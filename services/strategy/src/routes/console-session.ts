import { AppError, type App } from '@fxdesk/core';
import { ConsoleLoginSchema, ConsoleSessionSchema, ErrorEnvelopeSchema } from '@fxdesk/schemas';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { clearSessionCookie, CONSOLE_REFUSALS, sessionOf, setSessionCookie } from '../console-access.js';
import type { ConsoleSessions } from '../console-sessions.js';

export interface SessionRouteOptions {
  sessions: ConsoleSessions;
  secureCookie: boolean;
  lifetimeMs: number;
  /** Counts login attempts per client (CONSOLE_LOGIN_PER_MINUTE). */
  loginLimit: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

/** GET /console/session, POST /console/login and /console/logout. */
export function registerSessionRoutes(app: App, { sessions, secureCookie, lifetimeMs, loginLimit }: SessionRouteOptions): void {
  app.get(
    '/console/session',
    {
      config: { consoleAccess: 'public' },
      schema: {
        tags: ['console'],
        summary: 'Whether this browser may use the console, and its CSRF token',
        description: '`login_required` is true when CONSOLE_PASSWORD is set; then `authenticated` says whether the session cookie is valid.',
        response: { 200: ConsoleSessionSchema, 403: CONSOLE_REFUSALS[403] },
      },
    },
    async (request) => sessions.view(await sessionOf(request, sessions)),
  );

  app.post(
    '/console/login',
    {
      config: { consoleAccess: 'login' },
      onRequest: loginLimit,
      schema: {
        tags: ['console'],
        summary: 'Log in to the console with CONSOLE_PASSWORD',
        description:
          'Sets the session cookie (HttpOnly, SameSite=Strict, Secure in production) and answers the session with its CSRF token. ' +
          'A wrong password is 401 UNAUTHORIZED; CONSOLE_LOGIN_PER_MINUTE attempts per client IP, then 429 RATE_LIMITED. Without CONSOLE_PASSWORD there is nothing to log in to: it answers the open session.',
        body: ConsoleLoginSchema,
        response: {
          200: ConsoleSessionSchema,
          401: ErrorEnvelopeSchema.describe('UNAUTHORIZED: wrong password'),
          403: CONSOLE_REFUSALS[403],
          429: ErrorEnvelopeSchema.describe('RATE_LIMITED: too many login attempts from this client; see Retry-After'),
        },
      },
    },
    async (request, reply) => {
      if (!sessions.loginRequired) return sessions.view(undefined);
      const session = await sessions.login(request.body.password);
      if (!session) {
        request.log.warn({ ip: request.ip }, 'console login refused: wrong password');
        throw new AppError('unauthorized', 'wrong password');
      }
      setSessionCookie(reply, session, secureCookie, lifetimeMs);
      request.log.info({ ip: request.ip }, 'console login');
      return sessions.view(session);
    },
  );

  app.post(
    '/console/logout',
    {
      config: { consoleAccess: 'public' },
      schema: {
        tags: ['console'],
        summary: 'End the console session',
        description: 'Needs the X-CSRF-Token of the session it ends; without a session it only clears the cookie.',
        response: { 200: ConsoleSessionSchema, 403: CONSOLE_REFUSALS[403] },
      },
    },
    async (request, reply) => {
      const session = await sessionOf(request, sessions);
      if (session) await sessions.end(session);
      if (sessions.loginRequired) clearSessionCookie(reply, secureCookie);
      return sessions.view(undefined);
    },
  );
}
