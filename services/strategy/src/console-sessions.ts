import { randomBytes } from 'node:crypto';
import { secretsEqual } from '@fxdesk/core';
import type { Clock } from '@fxdesk/primitives';
import type { ConsoleSession as ConsoleSessionRecord } from '@fxdesk/schemas';

/** A browser logged in to the console. */
export interface ConsoleSession {
  /** What the session cookie holds (signed). */
  id: string;
  /** Sent back as X-CSRF-Token with every state-changing console request. */
  csrfToken: string;
  expiresAt: number;
}

export interface ConsoleSessionsOptions {
  /** CONSOLE_PASSWORD; undefined: no login (the console answers loopback clients only). */
  password: string | undefined;
  clock: Clock;
  lifetimeMs: number;
}

/** Sessions kept at most: a login past it ends the oldest one, so logins cannot fill the memory. */
const MAX_SESSIONS = 200;

const token = () => randomBytes(32).toString('base64url');

/**
 * The console's logins: a right CONSOLE_PASSWORD opens a session with its own CSRF token, which
 * lives until it expires or is logged out. Sessions live in this process (the strategy runs as
 * one process: two would trade every signal twice), so a restart asks for the password again.
 */
export class ConsoleSessions {
  private readonly sessions = new Map<string, ConsoleSession>();

  constructor(private readonly o: ConsoleSessionsOptions) {}

  get loginRequired(): boolean {
    return this.o.password !== undefined;
  }

  /** A new session when `password` is CONSOLE_PASSWORD (compared in constant time), else undefined. */
  login(password: string): ConsoleSession | undefined {
    if (this.o.password === undefined || !secretsEqual(password, this.o.password)) return undefined;
    this.dropExpired();
    if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
    const session = { id: token(), csrfToken: token(), expiresAt: this.o.clock.now() + this.o.lifetimeMs };
    this.sessions.set(session.id, session);
    return session;
  }

  /** The live session of a cookie's id. */
  find(id: string): ConsoleSession | undefined {
    const session = this.sessions.get(id);
    if (session && session.expiresAt <= this.o.clock.now()) {
      this.sessions.delete(id);
      return undefined;
    }
    return session;
  }

  end(session: ConsoleSession): void {
    this.sessions.delete(session.id);
  }

  /** Whether `given` (the X-CSRF-Token header) is the session's token. */
  csrfMatches(session: ConsoleSession, given: unknown): boolean {
    return typeof given === 'string' && given.length > 0 && secretsEqual(given, session.csrfToken);
  }

  /** GET /console/session's answer for a request with `session` (or none). */
  view(session: ConsoleSession | undefined): ConsoleSessionRecord {
    if (!this.loginRequired) return { login_required: false, authenticated: true, csrf_token: null, expires_at: null };
    if (!session) return { login_required: true, authenticated: false, csrf_token: null, expires_at: null };
    return { login_required: true, authenticated: true, csrf_token: session.csrfToken, expires_at: new Date(session.expiresAt).toISOString() };
  }

  private dropExpired(): void {
    const now = this.o.clock.now();
    for (const [id, session] of this.sessions) if (session.expiresAt <= now) this.sessions.delete(id);
  }
}
