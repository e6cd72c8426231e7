/**
 * The desk's risk state per account (issue 24, README "Risk"): one @fxdesk/trading RiskBook for
 * the live account and one for the paper account, told every entry, exit and equity mark by the
 * engine and the paper account, asked before every entry. The leader keeps each book's state in
 * the store (a halt at once, with its announcement in the same write), so a halt survives a
 * restart and a failover: a replica taking the lead reads it back before it trades.
 */
import { RiskBook, type Halt, type RiskEntry, type RiskState, type RiskVerdict } from '@fxdesk/trading';
import type { Logger } from 'pino';
import { latestWrite } from './latest-write.js';
import type { RiskSettings } from './risk-settings.js';

export type RiskAccount = 'live' | 'paper';
export const RISK_ACCOUNTS: readonly RiskAccount[] = ['live', 'paper'];

/** One account's book as the store keeps it: the RiskBook's state and the open positions it counts. */
export interface StoredRisk {
  state: RiskState;
  open: Array<{ id: string; entry: RiskEntry }>;
}

/** A halt's or a resume's announcement, written with the state that made it (the store's outbox). */
export interface RiskAnnouncement {
  key: string;
  account: RiskAccount;
  subject: string;
  message: string;
}

/** What DeskRisk needs of the store (store/risk-states.ts). */
export interface RiskStore {
  /** Each account's stored book; an account never written is absent. */
  riskStates(): Promise<Partial<Record<RiskAccount, StoredRisk>>>;
  saveRisk(account: RiskAccount, risk: StoredRisk, updatedAt: string): Promise<void>;
  /** The state and its announcement, in one transaction. */
  saveRiskAnnounced(account: RiskAccount, risk: StoredRisk, updatedAt: string, announcement: RiskAnnouncement): Promise<void>;
}

export interface DeskRiskOptions {
  settings: RiskSettings;
  /** Length of the timeframe's candle, ms (the cooldown counts candles). */
  candleMs: number;
  store: RiskStore;
  /** Whether this replica leads: only the leader writes the store. */
  isLeading: () => boolean;
  now: () => number;
  logger: Logger;
  /** HALT_FLATTEN: closes everything the strategy opened on `account` (the flatten of a stop with close_positions). */
  flatten?: (account: RiskAccount, halt: Halt) => Promise<void>;
  /** Tells the announcements a halt or resume waits in the store, to send it now. */
  announce?: () => void;
}

const iso = (ms: number) => new Date(ms).toISOString();

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

/**
 * The desk's two risk books. `check` answers from memory; every change is written behind (the
 * newest state per account, one write at a time), a halt and a resume at once with their
 * announcement. `load` reads the stored state back (a new leader, a restart) before trading.
 */
export class DeskRisk {
  private readonly books = new Map<RiskAccount, RiskBook>();
  private readonly open = new Map<RiskAccount, Map<string, RiskEntry>>();
  private readonly writes = new Map<RiskAccount, (risk: StoredRisk) => void>();
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly options: DeskRiskOptions) {
    for (const account of RISK_ACCOUNTS) {
      this.books.set(account, this.newBook());
      this.open.set(account, new Map());
      const onError = (err: unknown) => options.logger.error({ err, account }, 'risk: keeping the risk state failed (written again at its next change)');
      this.writes.set(
        account,
        latestWrite((risk: StoredRisk) => options.store.saveRisk(account, risk, iso(options.now())), { onError, pending: this.pending }),
      );
    }
  }

  /** Reads each account's stored state back: the halt, the peak, the day, the losses in a row, the cooldown and the open positions. */
  async load(): Promise<void> {
    const stored = await this.options.store.riskStates();
    for (const account of RISK_ACCOUNTS) {
      const risk = stored[account];
      if (!risk) continue;
      const book = this.newBook(risk.state);
      const open = new Map(risk.open.map(({ id, entry }) => [id, entry]));
      for (const [id, entry] of open) book.opened(id, entry);
      this.books.set(account, book);
      this.open.set(account, open);
    }
  }

  /** Whether an entry may go out on `account` now (the halt, then RiskBook.check). */
  check(account: RiskAccount, entry: RiskEntry, nowMs: number): RiskVerdict {
    return this.book(account).check(entry, nowMs);
  }

  /** A position opened / closed (closed: its net P/L in the account currency), as the account sees it. */
  opened(account: RiskAccount, id: string, entry: RiskEntry): void {
    this.book(account).opened(id, entry);
    this.openOf(account).set(id, entry);
    this.keep(account);
  }

  async closed(account: RiskAccount, id: string, pnl: number, exitMs: number): Promise<void> {
    this.book(account).closed(id, pnl, exitMs);
    this.openOf(account).delete(id);
    this.keep(account);
    await this.whenWritten();
  }

  /** The account's equity now; may halt (persisted, announced, and with HALT_FLATTEN the strategy's positions flattened). */
  async markEquity(account: RiskAccount, ms: number, equity: number): Promise<Halt | null> {
    const book = this.book(account);
    const before = JSON.stringify(book.snapshot());
    const halt = book.markEquity(ms, equity);
    if (!halt) {
      if (JSON.stringify(book.snapshot()) !== before) this.keep(account);
      return null;
    }
    this.options.logger.warn({ account, halt }, `risk: the ${account} account halts (${halt.reason}): no new entry until a person resumes it`);
    if (this.options.isLeading()) {
      await this.options.store.saveRiskAnnounced(account, this.stored(account), iso(ms), haltAnnouncement(account, halt));
      this.options.announce?.();
      if (this.options.settings.haltFlatten) await this.flatten(account, halt);
    }
    return halt;
  }

  /** A person resumes (POST /risk/resume or the console). */
  async resume(account: RiskAccount, ms: number, equity: number): Promise<void> {
    const book = this.book(account);
    const halt = book.halt;
    if (!halt) return;
    book.resume(ms, equity);
    if (this.options.isLeading()) {
      await this.options.store.saveRiskAnnounced(account, this.stored(account), iso(ms), resumeAnnouncement(account, ms, equity, halt));
      this.options.announce?.();
    }
  }

  /** The account's halt, or null. */
  haltOf(account: RiskAccount): Halt | null {
    return this.book(account).halt;
  }

  /** The account's book, for the reads of GET /risk. */
  book(account: RiskAccount): RiskBook {
    return this.books.get(account) as RiskBook;
  }

  /** Settles once the writes asked so far are done. */
  async whenWritten(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private async flatten(account: RiskAccount, halt: Halt): Promise<void> {
    try {
      await this.options.flatten?.(account, halt);
    } catch (err) {
      this.options.logger.error({ err, account }, 'risk: the halt could not flatten the positions; close them by hand');
    }
  }

  private keep(account: RiskAccount): void {
    if (this.options.isLeading()) this.writes.get(account)?.(this.stored(account));
  }

  private stored(account: RiskAccount): StoredRisk {
    return { state: this.book(account).snapshot(), open: [...this.openOf(account)].map(([id, entry]) => ({ id, entry })) };
  }

  private openOf(account: RiskAccount): Map<string, RiskEntry> {
    return this.open.get(account) as Map<string, RiskEntry>;
  }

  private newBook(state?: RiskState): RiskBook {
    const { settings, candleMs } = this.options;
    return new RiskBook({ limits: settings.limits, candleMs, dayRollHour: settings.dayRollHour, timeZone: settings.timeZone, state });
  }
}
