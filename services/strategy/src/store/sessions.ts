import type { Database } from '@fxdesk/core';

/**
 * A console login as the store keeps it: the session id (the cookie's value) only as its SHA-256,
 * so the table's rows open no session; the CSRF token as the browser reads it.
 */
export interface StoredSession {
  idHash: string;
  csrfToken: string;
  /** ISO. */
  expiresAt: string;
}

type SessionRow = { id_hash: string; csrf_token: string; expires_at: string };

/** The console's logins and the secret that signs their cookie, one of each for every replica on the database. */
export class SessionStore {
  constructor(private readonly db: Database) {}

  /**
   * Records a console login, in one write that also drops the sessions expired at `now` and
   * the oldest beyond `max`, so every replica sees at most `max` sessions.
   */
  async openSession(session: StoredSession, now: string, max: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      // Logins on several replicas at once take turns, so together they never leave more than `max`.
      await tx.lock('strategy_console_sessions');
      await tx.run('DELETE FROM strategy_console_sessions WHERE expires_at <= @now', { now });
      await tx.run('INSERT INTO strategy_console_sessions (id_hash, csrf_token, expires_at) VALUES (@idHash, @csrfToken, @expiresAt)', { ...session });
      // Keeps the newest `max`: every session at or before the (max + 1)-th newest goes.
      await tx.run('DELETE FROM strategy_console_sessions WHERE seq <= (SELECT seq FROM strategy_console_sessions ORDER BY seq DESC LIMIT 1 OFFSET @max)', {
        max,
      });
    });
  }

  /** The live session (expiring after `now`) of a session id's hash. */
  async findSession(idHash: string, now: string): Promise<StoredSession | undefined> {
    const row = await this.db.one<SessionRow>(
      'SELECT id_hash, csrf_token, expires_at FROM strategy_console_sessions WHERE id_hash = @idHash AND expires_at > @now',
      {
        idHash,
        now,
      },
    );
    return row && { idHash: row.id_hash, csrfToken: row.csrf_token, expiresAt: row.expires_at };
  }

  async endSession(idHash: string): Promise<void> {
    await this.db.run('DELETE FROM strategy_console_sessions WHERE id_hash = @idHash', { idHash });
  }

  /**
   * The secret that signs the console's session cookie: the one stored, or `candidate` when none
   * was; every replica on the database gets the same.
   */
  async consoleSecret(candidate: string): Promise<string> {
    await this.db.run('INSERT INTO strategy_console_secret (id, secret) VALUES (1, @candidate) ON CONFLICT (id) DO NOTHING', { candidate });
    // A statement of its own: it sees the secret another replica committed while the insert above waited for it.
    return ((await this.db.one<{ secret: string }>('SELECT secret FROM strategy_console_secret WHERE id = 1')) as { secret: string }).secret;
  }
}
