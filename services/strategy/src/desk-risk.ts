/**
 * The desk's risk state per account (issue 24, README "Risk"): one @fxdesk/trading RiskBook for
 * the live account and one for the paper account, told every entry, exit and equity mark by the
 * engine and the paper account, asked before every entry. The leader keeps each book in the store
 * (a halt at once, with its announcement in the same transaction), so a halt survives a restart
 * and a failover: a replica taking the lead reads it back (`load`) before it trades.
 */
import { TIMEFRAME_SECONDS, type AccountRisk, type JournalAccount, type RiskReport } from '@fxdesk/schemas';
import { RiskBook, type Halt, type RiskEntry, type RiskState, type RiskVerdict } from '@fxdesk/trading';
import type { Logger } from 'pino';
import { errors } from './errors.js';
import { accountRiskOf } from './risk-report.js';
import type { StrategyConfig } from './config.js';
import { riskSettingsOf, type RiskSettings } from './risk-settings.js';
import type { RiskAnnouncement, RiskStateStore, StoredRisk } from './store/index.js';

export type RiskAccount = JournalAccount;
export const RISK_ACCOUNTS: readonly RiskAccount[] = ['live', 'paper'];
export type { RiskEntry, RiskVerdict, Halt } from '@fxdesk/trading';

export interface DeskRiskOptions {
  settings: RiskSettings;
  /** Length of the timeframe's candle, ms (the cooldown counts candles). */
  candleMs: number;
  store: Pick<RiskStateStore, 'riskStates' | 'saveRisk' | 'saveRiskAnnounced' | 'resumeRisk'>;
  /** Whether this replica leads: only the leader writes the store. */
  isLeading: () => boolean;
  now: () => number;
  logger: Logger;
  /**
   * HALT_FLATTEN: closes everything the strategy opened on `account` (the flatten of a stop with
   * close_positions) under a key of the halt, so a second send replays; true once the venue's
   * gateway answered it (false: not answered, sent again at the leader's next sync).
   */
  flatten?: (account: RiskAccount, halt: Halt) => Promise<boolean>;
  /** Tells the announcements a halt or a resume waits in the store, to send it now. */
  announce?: () => void;
  /** The account's equity now, for a resume (live: the account service's; paper: the paper account's); null when it cannot be read. */
  equityNow?: (account: RiskAccount) => Promise<number | null>;
}

/** The risk settings and the candle length (TIMEFRAME's) a DeskRisk takes from the config. */
export function deskRiskOptionsOf(config: StrategyConfig): Pick<DeskRiskOptions, 'settings' | 'candleMs'> {
  return { settings: riskSettingsOf(config), candleMs: TIMEFRAME_SECONDS[config.TIMEFRAME] * 1000 };
}

/** One account's figures for GET /risk: its book's state, its open positions and its last equity. */
export interface RiskView {
  account: RiskAccount;
  state: RiskState;
  open: RiskEntry[];
  equity: { ms: number; value: number } | null;
}

const iso = (ms: number) => new Date(ms).toISOString();
/** How long after a flatten the gateway did not answer it is sent again: at the next check after this, not at every one. */
const FLATTEN_RETRY_MS = 5_000;

/** The announcement of `account` halting. */
export function haltAnnouncement(account: RiskAccount, halt: Halt): RiskAnnouncement {
  const why = halt.reason === 'daily_loss_limit' ? 'the daily loss limit' : 'the maximum drawdown';
  return {
    key: `halt:${account}:${halt.at}`,
    account,
    subject: `Halted: ${why} reached (${account})`,
    message: [
      `The desk sends no new entry on the ${account} account until a person resumes it (POST /risk/resume, or Resume on the console).`,
      `${halt.reason}: ${halt.detail}`,
      `halted at ${iso(halt.at)}`,
    ].join('\n'),
  };
}

/** The announcement of a person resuming `account`. */
export function resumeAnnouncement(account: RiskAccount, ms: number, equity: number, halt: Halt): RiskAnnouncement {
  return {
    key: `resume:${account}:${ms}`,
    account,
    subject: `Resumed: the ${account} account trades again`,
    message: [
      `Resumed at ${iso(ms)}, after the halt of ${iso(halt.at)} (${halt.reason}: ${halt.detail}).`,
      `The day and the peak start again from the equity ${equity.toFixed(2)}.`,
    ].join('\n'),
  };
}

interface Account {
  book: RiskBook;
  open: Map<string, RiskEntry>;
  equity: { ms: number; value: number } | null;
  /** The store's count of resumes this book is of. */
  resumes: number;
  /** A write asked while one runs: it goes next, with the newest state. */
  isDirty: boolean;
  writing: Promise<void> | undefined;
  /** A halt's announcement not stored yet: it goes with the next write of the state, in its transaction. */
  announcement: RiskAnnouncement | null;
  /** The `at` of the halt whose flatten was answered (stored with the book), and of the one being sent. */
  flattenedHalt: number | null;
  flatteningHalt: number | null;
  /** Not before this (epoch ms) is a flatten the gateway did not answer sent again. */
  flattenRetryAt: number;
}

/**
 * The desk's two risk books. `check` answers from memory; on the leader every change is written
 * behind (one write at a time per account, each of the newest state), a halt at once with its
 * announcement. A resume, on any replica, goes through the store (a halted row, one more resume);
 * the leader reads it back at once when it made it, else at its next `sync` (LEADER_CHECK_MS), or
 * when its own write finds the count raised.
 */
export class DeskRisk {
  private readonly accounts = new Map<RiskAccount, Account>();
  private readonly flattening = new Set<Promise<void>>();

  constructor(private readonly options: DeskRiskOptions) {
    for (const account of RISK_ACCOUNTS) {
      this.accounts.set(account, {
        book: this.newBook(),
        open: new Map(),
        equity: null,
        resumes: 0,
        isDirty: false,
        writing: undefined,
        announcement: null,
        flattenedHalt: null,
        flatteningHalt: null,
        flattenRetryAt: 0,
      });
    }
  }

  /** Reads each account's stored book back: the halt, the peak, the day, the losses in a row, the cooldown and the open positions. */
  async load(): Promise<void> {
    const stored = await this.options.store.riskStates();
    for (const account of RISK_ACCOUNTS) {
      const risk = stored[account];
      if (risk) this.adopt(account, risk, new Map(risk.open.map(({ id, entry }) => [id, entry])));
    }
    this.flattenOwed();
  }

  /** The leader's check for a resume made on another replica: adopts the stored book where its count of resumes is higher. */
  async sync(): Promise<void> {
    const stored = await this.options.store.riskStates();
    for (const account of RISK_ACCOUNTS) {
      const risk = stored[account];
      if (risk && risk.resumes > this.of(account).resumes) this.adopt(account, risk, this.of(account).open);
    }
    this.flattenOwed();
  }

  /** Whether an entry may go out on `account` now (the halt, then RiskBook.check). */
  check(account: RiskAccount, entry: RiskEntry, nowMs: number): RiskVerdict {
    return this.of(account).book.check(entry, nowMs);
  }

  /** A position opened / closed (closed: its net P/L in the account currency), as the account sees it. */
  opened(account: RiskAccount, id: string, entry: RiskEntry): void {
    const a = this.of(account);
    a.book.opened(id, entry);
    a.open.set(id, entry);
    void this.keep(account);
  }

  /** A position counted open whose order opened nothing: it leaves the book without being a trade. */
  async dropped(account: RiskAccount, id: string): Promise<void> {
    const a = this.of(account);
    a.book.dropped(id);
    a.open.delete(id);
    await this.keep(account);
  }

  async closed(account: RiskAccount, id: string, pnl: number, exitMs: number): Promise<void> {
    const a = this.of(account);
    a.book.closed(id, pnl, exitMs);
    a.open.delete(id);
    await this.keep(account);
  }

  /** The account's equity now; may halt (persisted, announced, and with HALT_FLATTEN the strategy's positions flattened). */
  async markEquity(account: RiskAccount, ms: number, equity: number): Promise<Halt | null> {
    const a = this.of(account);
    a.equity = { ms, value: equity };
    const halt = a.book.markEquity(ms, equity);
    if (!halt) {
      void this.keep(account);
      // Halted before: a flatten not answered yet goes again (one process alone has no sync).
      this.flattenOwed();
      return null;
    }
    this.options.logger.warn({ account, halt }, `risk: the ${account} account halts (${halt.reason}): no new entry until a person resumes it`);
    if (!this.options.isLeading()) return halt;
    // Stored before this returns (a failed write holds the halt in memory and goes again at the next change).
    a.announcement = haltAnnouncement(account, halt);
    await this.keep(account);
    // A resume on another replica that came first stands: this mark halts again at the next, or not.
    if (this.of(account).book.halt?.at !== halt.at) return null;
    this.options.announce?.();
    // In the background: the flatten may wait on the very account that is telling this mark.
    this.flattenOwed();
    return halt;
  }

  /** A person resumes (POST /risk/resume or the console). */
  async resume(account: RiskAccount, ms: number, equity: number): Promise<void> {
    await this.resumeStored(account, ms, equity);
  }

  /**
   * A person's resume, on any replica, as the store has the book: false when it is not halted
   * (the leader's halt not yet stored is taken from memory first).
   */
  async resumeStored(account: RiskAccount, ms: number, equity: number): Promise<boolean> {
    if (this.options.isLeading()) await this.whenWritten(account);
    const resumed = await this.options.store.resumeRisk(account, iso(this.options.now()), (stored) => {
      const state = stored?.state;
      if (!stored || !state?.halt) return null;
      const book = this.newBook(state);
      book.resume(ms, equity);
      return { risk: { ...stored, state: book.snapshot() }, announcement: resumeAnnouncement(account, ms, equity, state.halt) };
    });
    if (!resumed) return false;
    this.adopt(account, resumed, this.of(account).open);
    this.options.logger.info({ account }, `risk: the ${account} account resumed: entries go out again`);
    this.options.announce?.();
    return true;
  }

  /** GET /risk: every limit, its use now and the halt, per account. */
  async report(): Promise<RiskReport> {
    const now = this.options.now();
    const views = await this.views();
    return { halt_flatten: this.options.settings.haltFlatten, accounts: views.map((view) => accountRiskOf(view, this.options.settings, now)) };
  }

  /**
   * POST /risk/resume: resumes `account` at its equity now (the last marked when it cannot be
   * read). 409 NOT_HALTED when it is not halted; 503 when no equity is known to restart from.
   */
  async resumeNow(account: RiskAccount): Promise<{ resumedAt: number; account: AccountRisk }> {
    const views = await this.views();
    const view = views.find((v) => v.account === account) as RiskView;
    if (!view.state.halt) throw errors.create('not_halted', `the ${account} account is not halted`);
    const equity = (await this.options.equityNow?.(account)) ?? view.equity?.value ?? null;
    if (equity === null)
      throw errors.create('downstream_unavailable', `the ${account} account's equity cannot be read now: the resume needs it to restart the day and the peak`);
    const ms = this.options.now();
    if (!(await this.resumeStored(account, ms, equity))) throw errors.create('not_halted', `the ${account} account is not halted`);
    const after = (await this.views()).find((v) => v.account === account) as RiskView;
    return { resumedAt: ms, account: accountRiskOf(after, this.options.settings, ms) };
  }

  /** The account's halt, or null. */
  haltOf(account: RiskAccount): Halt | null {
    return this.of(account).book.halt;
  }

  /** Each account's figures: the leader's from memory, a follower's as the leader last stored them. */
  async views(): Promise<RiskView[]> {
    if (this.options.isLeading()) {
      return RISK_ACCOUNTS.map((account) => {
        const a = this.of(account);
        return { account, state: a.book.snapshot(), open: [...a.open.values()], equity: a.equity };
      });
    }
    const stored = await this.options.store.riskStates();
    return RISK_ACCOUNTS.map((account) => {
      const risk = stored[account];
      return { account, state: risk?.state ?? this.newBook().snapshot(), open: risk?.open.map((p) => p.entry) ?? [], equity: risk?.equity ?? null };
    });
  }

  /** Settles once the writes asked so far are done. */
  async whenWritten(account?: RiskAccount): Promise<void> {
    for (const name of account ? [account] : RISK_ACCOUNTS) {
      while (this.of(name).writing) await this.of(name).writing;
    }
  }

  /** Settles once the writes and a halt's flatten asked so far are done (tests, a shutdown). */
  async whenIdle(): Promise<void> {
    await this.whenWritten();
    while (this.flattening.size > 0) await Promise.all([...this.flattening]);
  }

  private track(work: Promise<void>): void {
    this.flattening.add(work);
    void work.finally(() => this.flattening.delete(work));
  }

  /**
   * HALT_FLATTEN, on the leader: each account halted whose flatten is not answered yet (this
   * process's halt, or one a leader before stored and did not see answered, killed mid-send) is
   * flattened, one send at a time, under the halt's key. Called at a halt, at `load` (taking the
   * lead), at each `sync` and each equity mark, so a flatten the gateway did not answer goes again
   * (FLATTEN_RETRY_MS after it failed, not at every check).
   */
  private flattenOwed(): void {
    if (!this.options.settings.haltFlatten || !this.options.isLeading()) return;
    for (const account of RISK_ACCOUNTS) {
      const a = this.of(account);
      const halt = a.book.halt;
      if (!halt || a.flattenedHalt === halt.at || a.flatteningHalt !== null || this.options.now() < a.flattenRetryAt) continue;
      a.flatteningHalt = halt.at;
      this.track(this.flatten(account, halt).finally(() => (a.flatteningHalt = null)));
    }
  }

  private async flatten(account: RiskAccount, halt: Halt): Promise<void> {
    let isAnswered = false;
    try {
      isAnswered = (await this.options.flatten?.(account, halt)) ?? true;
    } catch (err) {
      this.options.logger.error({ err, account }, 'risk: the halt could not flatten the positions; sent again at the next check');
    }
    const a = this.of(account);
    if (!isAnswered) {
      a.flattenRetryAt = this.options.now() + FLATTEN_RETRY_MS;
      return;
    }
    a.flattenedHalt = halt.at;
    await this.keep(account);
  }

  /** Writes the account's book behind, on the leader: one write at a time, the next of the newest state. */
  private keep(account: RiskAccount): Promise<void> {
    const a = this.of(account);
    if (!this.options.isLeading()) return Promise.resolve();
    a.isDirty = true;
    a.writing ??= this.writeAll(account).finally(() => (a.writing = undefined));
    return a.writing;
  }

  private async writeAll(account: RiskAccount): Promise<void> {
    const a = this.of(account);
    while (a.isDirty) {
      a.isDirty = false;
      try {
        const { store } = this.options;
        const [risk, updatedAt, announcement] = [this.stored(account), iso(this.options.now()), a.announcement];
        const isKept = announcement ? await store.saveRiskAnnounced(account, risk, updatedAt, announcement) : await store.saveRisk(account, risk, updatedAt);
        if (isKept && a.announcement === announcement) a.announcement = null;
        if (!isKept) {
          // A resume on another replica came in between: take it (a halt not stored goes with it), then write this change over it.
          await this.sync();
          a.isDirty = true;
        }
      } catch (err) {
        this.options.logger.error({ err, account }, 'risk: keeping the risk state failed (written again at its next change)');
      }
    }
  }

  private adopt(account: RiskAccount, risk: StoredRisk, open: Map<string, RiskEntry>): void {
    const book = this.newBook(risk.state);
    for (const [id, entry] of open) book.opened(id, entry);
    const a = this.of(account);
    Object.assign(a, { book, open, equity: a.equity ?? risk.equity, resumes: risk.resumes, announcement: null, flattenedHalt: risk.flattenedHalt });
  }

  private stored(account: RiskAccount): StoredRisk {
    const a = this.of(account);
    return {
      state: a.book.snapshot(),
      open: [...a.open].map(([id, entry]) => ({ id, entry })),
      equity: a.equity,
      resumes: a.resumes,
      flattenedHalt: a.flattenedHalt,
    };
  }

  private of(account: RiskAccount): Account {
    return this.accounts.get(account) as Account;
  }

  private newBook(state?: RiskState): RiskBook {
    const { settings, candleMs } = this.options;
    return new RiskBook({ limits: settings.limits, candleMs, dayRollHour: settings.dayRollHour, timeZone: settings.timeZone, state });
  }
}
