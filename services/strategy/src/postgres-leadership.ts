import { connectPostgres, type CheckResult, type PostgresSession } from '@fxdesk/core';
import type { Clock, TimerHandle } from '@fxdesk/primitives';
import type { Logger } from 'pino';
import type { Leadership, LeadershipHandlers } from './leadership.js';
import type { RunState } from './store/index.js';

/** The channel a recorded change of the run is announced on (NOTIFY), so every replica runs it at once. */
const RUN_CHANNEL = 'fxdesk_strategy_run';

/** The advisory lock's two keys: "fxds" and "stra" in ASCII, a pair no other lock of the desk takes. */
const LOCK = [0x66786473, 0x73747261];
/** Each replica's election session is named this, then its replica id (PostgreSQL keeps 63 bytes). */
const APPLICATION = 'fxdesk-strategy ';

// The server ends the session of a leader whose machine vanished (no FIN, no RST) after about
// 6 s: keepalive probes after 3 s of silence, 1 s apart, 3 unanswered; and data it sent that
// stays unacknowledged 6 s. The lock goes with the session.
const SESSION_SETTINGS = 'SET tcp_keepalives_idle = 3; SET tcp_keepalives_interval = 1; SET tcp_keepalives_count = 3; SET tcp_user_timeout = 6000';

/** The session that holds the lock, named by its application_name. */
const HOLDER = `SELECT a.application_name AS name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
  WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND l.classid = $1::oid AND l.objid = $2::oid AND l.objsubid = 2`;

export interface PostgresLeadershipOptions {
  /** DATABASE_URL. */
  url: string;
  replicaId: string;
  clock: Clock;
  logger: Logger;
  /** How often a follower tries to take the lead and the leader checks its session (LEADER_CHECK_MS); also the longest a check may take. */
  checkMs: number;
}

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * The election on PostgreSQL: the leader is the replica whose session holds a session-level
 * advisory lock (pg_try_advisory_lock), taken on a connection of its own. The server frees the
 * lock when that session ends, so a leader that dies (its process killed: at once; its machine
 * gone: within about 6 s, see SESSION_SETTINGS) is replaced at a follower's next check, every
 * `checkMs`. The leader checks its session as often, and steps down when a check fails or takes
 * longer than `checkMs`, before the server can give the lock to another replica. The same
 * session announces the run changes this replica records and LISTENs for every replica's
 * (RUN_CHANNEL), so a start, stop or restart asked of any replica reaches the others at once.
 */
export class PostgresLeadership implements Leadership {
  readonly replicaId: string;
  private session: PostgresSession | undefined;
  private isLeading = false;
  private isStopped = false;
  private handlers: LeadershipHandlers | undefined;
  private timer: TimerHandle | undefined;
  private ticking: Promise<void> | undefined;

  constructor(private readonly o: PostgresLeadershipOptions) {
    this.replicaId = o.replicaId;
  }

  get isLeader(): boolean {
    return this.isLeading;
  }

  start(handlers: LeadershipHandlers): void {
    this.handlers = handlers;
    this.schedule(0);
  }

  /** NOTIFY on the election's session, once the change is committed; without one, the others run it at their next check. */
  announce(run: RunState): void {
    void this.session
      ?.query('SELECT pg_notify($1, $2)', [RUN_CHANNEL, String(run.generation)])
      .catch((err: unknown) => this.o.logger.warn({ err }, 'could not tell the other replicas of the change of the run; they run it at their next check'));
  }

  async check(): Promise<CheckResult> {
    if (this.isLeading) return { ok: true, detail: `leader: replica ${this.replicaId} runs the strategy` };
    const session = this.session;
    if (!session) return { ok: false, detail: `follower: replica ${this.replicaId} has no session on PostgreSQL to take part in the election` };
    const { rows } = await session.query<{ name: string }>(HOLDER, LOCK);
    const holder = rows[0]?.name;
    if (holder === undefined) return { ok: true, detail: 'follower: no replica leads at the moment; one takes the lead at its next check' };
    return { ok: true, detail: `follower: replica ${holder.startsWith(APPLICATION) ? holder.slice(APPLICATION.length) : holder} leads` };
  }

  async stop(): Promise<void> {
    this.isStopped = true;
    if (this.timer) this.o.clock.clearTimer(this.timer);
    await this.ticking;
    this.lose('this replica is stopping');
  }

  private schedule(delayMs: number): void {
    if (this.isStopped) return;
    this.timer = this.o.clock.setTimeout(() => {
      this.ticking = this.tick().finally(() => {
        this.ticking = undefined;
        this.schedule(this.o.checkMs);
      });
    }, delayMs);
    this.timer.unref();
  }

  /** One check: take the lead when free, or make sure the session that holds it still answers; then run what the store records. */
  private async tick(): Promise<void> {
    const handlers = this.handlers as LeadershipHandlers;
    try {
      const session = await this.connected();
      if (this.isLeading) {
        await this.within(session.query('SELECT 1'));
      } else if ((await this.within(session.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', LOCK))).rows[0]?.locked) {
        this.isLeading = true;
        this.o.logger.info({ replica: this.replicaId }, 'took the lead: this replica runs the strategy');
        await handlers.lead();
      }
    } catch (err) {
      this.lose(`the election's session failed: ${reason(err)}`);
      return;
    }
    await handlers.sync().catch((err: unknown) => this.o.logger.warn({ err }, 'could not run the recorded run'));
  }

  /** The election's session, opened when there is none: named, with short TCP timeouts, listening for run changes. */
  private async connected(): Promise<PostgresSession> {
    if (this.session) return this.session;
    const session = await connectPostgres({ url: this.o.url, applicationName: `${APPLICATION}${this.replicaId}`, timeoutMs: this.o.checkMs });
    try {
      await this.within(session.query(SESSION_SETTINGS));
      await this.within(session.query(`LISTEN ${RUN_CHANNEL}`));
    } catch (err) {
      void session.end().catch(() => undefined);
      throw err;
    }
    if (this.isStopped) {
      void session.end().catch(() => undefined);
      throw new Error('stopped');
    }
    const lost = (why: string) => () => {
      if (this.session === session) this.lose(why);
    };
    session.on('error', (err: Error) => lost(`the election's session failed: ${err.message}`)());
    session.on('end', lost('the election session ended'));
    session.on('notification', (message) => {
      if (message.channel === RUN_CHANNEL) void this.handlers?.sync().catch((err: unknown) => this.o.logger.warn({ err }, 'could not run the recorded run'));
    });
    this.session = session;
    return session;
  }

  /** `query`, failed when it takes longer than a check. */
  private within<T>(query: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = this.o.clock.setTimeout(() => reject(new Error(`PostgreSQL did not answer within ${this.o.checkMs} ms`)), this.o.checkMs);
      timer.unref();
      query.then(resolve, reject).finally(() => this.o.clock.clearTimer(timer));
    });
  }

  /** Ends the session (which frees the lock where it still reaches the server) and stops leading. */
  private lose(why: string): void {
    const session = this.session;
    this.session = undefined;
    if (session) void session.end().catch(() => undefined);
    if (!this.isLeading) return;
    this.isLeading = false;
    this.o.logger.warn({ replica: this.replicaId, why }, 'gave up the lead: this replica decides nothing until it leads again');
    this.handlers?.follow(why);
  }
}
