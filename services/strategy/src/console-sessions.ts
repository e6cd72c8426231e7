import { createHash, randomBytes } from 'node:crypto';
import { secretsEqual } from '@fxdesk/core';
import type { Clock } from '@fxdesk/primitives';
import type { ConsoleSession as ConsoleSessionRecord } from '@fxdesk/schemas';
import type { SessionStore } from './store/index.js';

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
  /** Where the sessions live: the strategy's store, which every replica shares. */
  store: Pick<SessionStore, 'openSession' | 'findSession' | 'endSession' | 'consoleSecret'>;
}

/** Sessions kept at most: a login past it ends the oldest one, so logins cannot fill the store. */
export const MAX_SESSIONS = 200;

const token = () => randomBytes(32).toString('base64url');
const hashOf = (id: string) => createHash('sha256').update(id).digest('hex');
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The console's logins: a right CONSOLE_PASSWORD opens a session with its own CSRF token, which
 * lives until it expires or is logged out. Sessions live in the store (the id only as its hash),
 * so behind a load balancer a login made on one replica holds on every other, a logout on any
 * ends it everywhere, and a restart keeps them.
 */
export class ConsoleSessions {
  constructor(private readonly o: ConsoleSessionsOptions) {}

  get loginRequired(): boolean {
    return this.o.password !== undefined;
  }

  /** The secret that signs the session cookie: one for every replica, made by the first and kept in the store. */
  cookieSecret(): Promise<string> {
    return this.o.store.consoleSecret(token());
  }

  /** A new session when `password` is CONSOLE_PASSWORD (compared in constant time), else undefined. */
  async login(password: string): Promise<ConsoleSession | undefined> {
    if (this.o.password === undefined || !secretsEqual(password, this.o.password)) return undefined;
    const now = this.o.clock.now();
    const session = { id: token(), csrfToken: token(), expiresAt: now + this.o.lifetimeMs };
    await this.o.store.openSession({ idHash: hashOf(session.id), csrfToken: session.csrfToken, expiresAt: iso(session.expiresAt) }, iso(now), MAX_SESSIONS);
    return session;
  }

  /** The live session of a cookie's id. */
  async find(id: string): Promise<ConsoleSession | undefined> {
    const stored = await this.o.store.findSession(hashOf(id), iso(this.o.clock.now()));
    return stored && { id, csrfToken: stored.csrfToken, expiresAt: Date.parse(stored.expiresAt) };
  }

  async end(session: ConsoleSession): Promise<void> {
    await this.o.store.endSession(hashOf(session.id));
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
}
