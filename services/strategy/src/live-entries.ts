/**
 * Risk before every live entry (issue 24, README "Risk before every entry"): the leader sizes a
 * live signal (entry-sizing.ts: the account service's equity, the venue's volume terms, the
 * market's rate) and asks the desk's risk book of the live account whether it may go out, after
 * telling the book what the venue holds and what the journal closed. A signal it refuses is never
 * sent; the engine records it skipped with the reason.
 */
import { ServiceError, type ExecutionClient } from '@fxdesk/client';
import type { JournalTrade, SignalExecution, StrategySignal } from '@fxdesk/schemas';
import type { Halt, HaltReason, RiskEntry, RiskSkip, RiskVerdict } from '@fxdesk/trading';
import type { Logger } from 'pino';
import type { LiveEquity } from './account-view.js';
import { conversionRate, entrySize, volumeTermsOf, type EntrySizeSkip, type SizingSettings, type SizingSources } from './entry-sizing.js';
import type { JournalStore, SignalStore } from './store/index.js';
import { instrumentOfSymbol } from './symbols.js';

export type RiskAccount = 'live' | 'paper';

/** What an entry asks of the desk's risk state (DeskRisk, desk-risk.ts): its checks and what it is told. */
export interface EntryRisk {
  check(account: RiskAccount, entry: RiskEntry, nowMs: number): RiskVerdict;
  opened(account: RiskAccount, id: string, entry: RiskEntry): void;
  closed(account: RiskAccount, id: string, pnl: number, exitMs: number): Promise<void>;
  dropped(account: RiskAccount, id: string): Promise<void>;
  markEquity(account: RiskAccount, ms: number, equity: number): Promise<Halt | null>;
  haltOf(account: RiskAccount): Halt | null;
}

/**
 * Why an entry was not traded, in the lab's words (LAB_SKIP_REASONS): the sizing's reason, a
 * limit's (one position per pair is `position_open`), the halt's reason (daily_loss_limit,
 * max_drawdown), and on paper the venue's own refusals the lab makes too (invalid_stops, insufficient_margin).
 */
export type EntrySkip = EntrySizeSkip | Exclude<RiskSkip, 'position_open_on_pair'> | 'position_open' | HaltReason | 'invalid_stops' | 'insufficient_margin';

export type Admission = { volume: string } | { skipped: EntrySkip; detail: string };

/** A limit's refusal as the signal's code: a halt by its reason, so a trader reads `daily_loss_limit`, not `halted`. */
export function refusalOf(verdict: RiskVerdict & { ok: false }, halt: Halt | null): { skipped: EntrySkip; detail: string } {
  const skipped = verdict.skip === 'halted' && halt ? halt.reason : verdict.skip === 'position_open_on_pair' ? 'position_open' : verdict.skip;
  return { skipped, detail: verdict.detail };
}

/** The execution record of a signal the desk did not trade. */
export function skippedExecution(base: SignalExecution, skip: { skipped: EntrySkip; detail: string }, nowMs: number, what: string): SignalExecution {
  return {
    ...base,
    status: 'skipped',
    code: skip.skipped,
    message: `${skip.detail}; ${what}`,
    tickets: null,
    volume: null,
    updated_at: new Date(nowMs).toISOString(),
  };
}

export interface LiveEntriesOptions {
  execution: ExecutionClient;
  signals: SignalStore;
  /** The journal's live trades: each close reaches the book once, whichever replica journaled it. */
  journal: Pick<JournalStore, 'page'>;
  /** The ids the live book counts open, as the store keeps them (the leader's before this one's too). */
  openIds: () => Promise<string[]>;
  sizing: SizingSettings;
  /** The desk's risk state; absent: no limit (sizing only). */
  risk?: EntryRisk;
  /** The account service's equity now (null: it does not answer, or no ACCOUNT_URL). */
  equity: () => Promise<LiveEquity | null>;
  /** Units of `to` per unit of `from` at the latest prices (the market source's). */
  rate: (from: string, to: string) => number | undefined;
  /** SIGNAL_SOURCE: the strategy's own positions. */
  source: string;
  symbolMap: Readonly<Record<string, string>>;
  /** Length of the timeframe's candle, ms. */
  candleMs: number;
  /** Settles once the orders sent so far are answered and stored (their position tickets known). */
  whenSent: () => Promise<void>;
  /** Journals what the venue closed since the last read (LiveJournal.sync), so the book hears of each close first. */
  syncJournal?: () => Promise<unknown>;
  now: () => number;
  logger: Logger;
}

/** An order's outcome that opened (or may have opened) a position: anything else leaves the book. */
const MAY_HOLD = new Set(['filled', 'partially_filled', 'placed', 'unknown', 'pending']);

/**
 * The live account's entries, one at a time (so two pairs' signals at one close meet the limits in
 * turn, as the lab's do): `admit` sizes and checks a signal and, when it may go out, counts it open
 * under its signal_id; `closedTrade` and `submitted` tell the book what became of it.
 */
export class LiveEntries {
  private turn: Promise<unknown> = Promise.resolve();
  /**
   * Signals admitted whose position the store does not name yet (its order's answer not stored):
   * a venue position of theirs is that signal's, not another one to count.
   */
  private readonly unnamed = new Map<string, RiskEntry>();
  /** The journal's trades told to the book (by this process), and from when the journal is read for them. */
  private readonly told = new Set<string>();
  /** The ids this process told the book open, and those it closed. */
  private readonly held = new Set<string>();
  private readonly gone = new Set<string>();
  private toldSinceMs: number | undefined;

  constructor(private readonly o: LiveEntriesOptions) {}

  /** The volume of a live signal, or why it is not sent. */
  admit(signal: StrategySignal): Promise<Admission> {
    const result = this.turn.then(() => this.decide(signal));
    this.turn = result.catch(() => undefined);
    return result;
  }

  /**
   * A live trade the journal recorded: its position leaves the book with its P/L, closed at the
   * start of the candle it left in, as the lab and the paper account count a cooldown's candles.
   */
  async closedTrade(trade: JournalTrade): Promise<void> {
    if (this.told.has(trade.id)) return;
    this.told.add(trade.id);
    const exitMs = Math.floor(Date.parse(trade.exit_time) / this.o.candleMs) * this.o.candleMs;
    if (trade.signal_id) this.unnamed.delete(trade.signal_id);
    await this.close(trade.signal_id ?? trade.id, trade.pnl, exitMs);
  }

  /** The execution service's final answer to a signal's order: one that opened nothing leaves the book. */
  submitted(signal: StrategySignal, execution: SignalExecution): void {
    if (MAY_HOLD.has(execution.status)) return;
    this.unnamed.delete(signal.signal_id);
    // It never held a position: it leaves the book and is no trade (a run of losses goes on, as the lab's skipped entry leaves it).
    this.held.delete(signal.signal_id);
    this.gone.add(signal.signal_id);
    void this.o.risk?.dropped('live', signal.signal_id);
  }

  private async decide(signal: StrategySignal): Promise<Admission> {
    const { risk, now } = this.o;
    if (risk) await this.reconcile();
    // Read before every check, sized by risk or not: the read marks the live book's equity (the daily loss, the drawdown).
    const account = await this.o.equity();
    const sized = entrySize(
      this.o.sizing,
      signal.entry_price,
      signal.stop_loss,
      this.o.sizing.riskPercent === null ? null : await this.sources(signal, account),
    );
    if ('skipped' in sized) return sized;
    const entry: RiskEntry = { instrument: signal.instrument, side: signal.type === 'LONG' ? 1 : -1, lots: Number(sized.lots) };
    if (risk) {
      const verdict = risk.check('live', entry, now());
      if (!verdict.ok) return refusalOf(verdict, risk.haltOf('live'));
      this.open(signal.signal_id, entry);
      this.unnamed.set(signal.signal_id, entry);
    }
    return { volume: sized.lots };
  }

  /** What the sizing reads for a signal: each source that does not answer is null (and logged). */
  private async sources(signal: StrategySignal, account: LiveEquity | null): Promise<SizingSources> {
    const terms = await this.o.execution.symbolTerms(signal.symbol).catch((err: unknown) => {
      if (!(err instanceof ServiceError)) throw err;
      this.o.logger.warn({ err, symbol: signal.symbol }, 'sizing: the venue’s terms of the symbol could not be read; the signal is not sent');
      return null;
    });
    return {
      equity: account?.equity ?? null,
      terms: terms && volumeTermsOf(terms),
      quoteToAccount: terms && account ? conversionRate(terms.currency_profit, account.currency, this.o.rate) : null,
    };
  }

  /**
   * The live trades journaled since this process's first look (by this replica's journal or
   * another's: two leaders for a moment each journal what the other has not), each told once.
   */
  private async closesJournaled(): Promise<void> {
    const since = (this.toldSinceMs ??= this.o.now());
    const trades: JournalTrade[] = [];
    for (let before: Parameters<LiveEntriesOptions['journal']['page']>[2]; ;) {
      const page = await this.o.journal.page({ account: 'live', fromMs: since }, 500, before);
      trades.push(...page.trades);
      if (page.next === null) break;
      before = page.next;
    }
    for (const trade of trades.reverse()) await this.closedTrade(trade);
  }

  private open(id: string, entry: RiskEntry): void {
    this.held.add(id);
    this.gone.delete(id);
    this.o.risk?.opened('live', id, entry);
  }

  private async close(id: string, pnl: number, exitMs: number): Promise<void> {
    this.held.delete(id);
    this.gone.add(id);
    await this.o.risk?.closed('live', id, pnl, exitMs);
  }

  /**
   * What the book counts open that the venue no longer holds and the journal did not close (a
   * position whose deals it cannot read): it leaves the book as a trade of no P/L, so a pair is never
   * held shut by a position gone. A signal whose order has no answer yet stays.
   */
  private async closeVanished(held: ReadonlySet<string>, byPosition: ReadonlyMap<string, StrategySignal>): Promise<void> {
    const ticketOf = new Map([...byPosition].map(([ticket, signal]) => [signal.signal_id, ticket]));
    const ids = new Set([...this.held, ...(await this.o.openIds())]);
    for (const id of ids) {
      if (this.gone.has(id)) continue;
      const ticket = id.startsWith('live:') ? id.slice('live:'.length) : (ticketOf.get(id) ?? (await this.answeredTicket(id)));
      if (ticket === undefined || held.has(ticket)) continue;
      this.unnamed.delete(id);
      if (ticket !== '') this.told.add(`live:${ticket}`);
      this.o.logger.warn({ id, ticket }, 'risk: a position the venue no longer holds was not journaled; it leaves the live book with no P/L');
      await this.close(id, 0, this.o.now());
    }
  }

  /**
   * The position ticket of a signal's answered order ('' when it opened none); undefined while
   * unanswered. A signal the store does not hold that another process admitted (a leader killed
   * between its admission and its insert, the gate before any send) never went out: ''.
   */
  private async answeredTicket(signalId: string): Promise<string | undefined> {
    const signal = await this.o.signals.find(signalId);
    if (!signal) return this.held.has(signalId) ? undefined : '';
    if (signal.execution.status === 'pending') return undefined;
    return signal.execution.tickets?.position ?? '';
  }

  /** Whether an admitted signal not yet named by the store is this venue position (same pair, side and lots): it is counted already. */
  private claimUnnamed(entry: RiskEntry): boolean {
    for (const [id, admitted] of this.unnamed) {
      if (admitted.instrument === entry.instrument && admitted.side === entry.side && Math.abs(admitted.lots - entry.lots) < 1e-9) {
        this.unnamed.delete(id);
        return true;
      }
    }
    return false;
  }

  /**
   * Tells the book what the venue closed (through the journal) and holds: each open position of the
   * strategy's, under the signal that opened it (or `live:<ticket>`), is counted open. A read that
   * fails leaves the book as it was.
   */
  private async reconcile(): Promise<void> {
    await this.o.whenSent();
    await this.o.syncJournal?.();
    await this.closesJournaled();
    let positions;
    try {
      positions = (await this.o.execution.positions({ source: this.o.source })).positions;
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      this.o.logger.warn({ err }, 'risk: the open positions could not be read; the limits use what the desk knew');
      return;
    }
    const signals = await this.o.signals.byPositions(positions.map((p) => p.ticket));
    for (const p of positions) {
      const signal = signals.get(p.ticket);
      if (signal) this.unnamed.delete(signal.signal_id);
    }
    for (const p of positions) {
      const signal = signals.get(p.ticket);
      const entry: RiskEntry = {
        instrument: signal?.instrument ?? instrumentOfSymbol(p.symbol, this.o.symbolMap),
        side: p.side === 'buy' ? 1 : -1,
        lots: Number(p.volume),
      };
      if (!signal && this.claimUnnamed(entry)) continue;
      this.open(signal?.signal_id ?? `live:${p.ticket}`, entry);
    }
    await this.closeVanished(new Set(positions.map((p) => p.ticket)), signals);
  }
}
