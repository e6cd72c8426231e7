/**
 * The live account's side of the journal (README "The trade journal"): the leader reads the
 * execution service's deals and journals each position of the strategy's orders once it is
 * closed, however it closed: its stop or target at the venue, a close by hand, a flatten.
 */
import { ServiceError, type ExecutionClient } from '@fxdesk/client';
import { MAX_DEALS_RANGE_DAYS, type Deal, type DealList, type ExitReason, type JournalTrade, type StrategySignal } from '@fxdesk/schemas';
import type { Logger } from 'pino';
import { exitMarksOf, type ExitMarks } from './exit-marks.js';
import type { JournalStore, SignalStore } from './store/index.js';

const DAY_MS = 86_400_000;
/** How far back a position's deals are read: the longest range one GET /v1/deals takes. */
const LOOKBACK_MS = MAX_DEALS_RANGE_DAYS * DAY_MS;
/** Each sync reads again this much before the last one's end: a deal the venue reports late is still seen. */
const OVERLAP_MS = 10 * 60_000;
/** A position's newest actions read for its exit's reason. */
const ACTIONS_READ = 100;

export interface LiveJournalOptions {
  execution: ExecutionClient;
  journal: JournalStore;
  signals: SignalStore;
  /** SIGNAL_SOURCE: the source of the strategy's orders, read back from their comments. */
  source: string;
  now: () => number;
  logger: Logger;
  /** Whether this replica leads (only the leader reads the venue). */
  isLeading: () => boolean;
  /** Between two reads of the deals (LIVE_JOURNAL_SYNC_SECONDS). */
  intervalMs: number;
  /** Told each trade once it is journaled (the desk's risk hears of each live close). */
  onJournaled?: (trade: JournalTrade) => Promise<void>;
}

const round = (v: number, places: number) => Math.round(v * 10 ** places) / 10 ** places;
const sum = (deals: readonly Deal[], field: (d: Deal) => number) => deals.reduce((total, d) => total + field(d), 0);
const volumeOf = (deals: readonly Deal[]) => sum(deals, (d) => Number(d.volume));
/** Σ price × volume / Σ volume, to 10 places: one deal's price comes back as the venue gave it (1.26889 × 0.2 / 0.2 is 1.2688899999999999). */
const averagePrice = (deals: readonly Deal[]) => round(sum(deals, (d) => Number(d.price) * Number(d.volume)) / volumeOf(deals), 10);

/** The exit reason of a closing deal: the venue's stop (under the rule that set it last) or target, a stop-out, or a close asked for (by the rules, a flatten or someone). */
function exitReasonOf(deal: Deal, marks: ExitMarks): ExitReason {
  if (deal.reason === 'sl') return marks.stop ?? 'stop';
  if (deal.reason === 'so') return 'stop';
  if (deal.reason === 'tp') return 'target';
  return marks.close ?? 'manual';
}

/** `EURUSD` → `EUR_USD`: the instrument of a symbol no signal names (six letters, else as it is). */
function instrumentOf(symbol: string): string {
  return /^[A-Z]{6}$/.test(symbol) ? `${symbol.slice(0, 3)}_${symbol.slice(3)}` : symbol;
}

/**
 * The journal's trade of a position from all its deals, or null while some of it is open. P/L is
 * the deals' profit, commission and swap; the R multiple needs the signal's stop: the money at
 * risk is the entry–stop distance at the money per price unit the deals' profit shows.
 */
export function liveTradeOf(position: string, deals: readonly Deal[], signal: StrategySignal | undefined, marks: ExitMarks): JournalTrade | null {
  const ins = deals.filter((d) => d.entry === 'in');
  const outs = deals.filter((d) => d.entry !== 'in');
  const lots = volumeOf(ins);
  if (ins.length === 0 || outs.length === 0 || volumeOf(outs) + 1e-9 < lots) return null;
  const side = ins[0]!.side === 'buy' ? 1 : -1;
  const entry = averagePrice(ins);
  const exit = averagePrice(outs);
  const profit = sum(deals, (d) => Number(d.profit));
  const commission = sum(deals, (d) => Number(d.commission));
  const swap = sum(deals, (d) => Number(d.swap));
  const pnl = round(profit + commission + swap, 2);
  const move = side * (exit - entry);
  const riskMoney = signal && move !== 0 ? Math.abs(entry - signal.stop_loss) * (profit / move) : 0;
  const last = outs.at(-1)!;
  const entryMs = Date.parse(ins[0]!.time);
  const exitMs = Date.parse(last.time);
  return {
    id: `live:${position}`,
    account: 'live',
    signal_id: signal?.signal_id ?? null,
    position,
    instrument: signal?.instrument ?? instrumentOf(ins[0]!.symbol),
    side: side === 1 ? 'LONG' : 'SHORT',
    volume_lots: round(lots, 2),
    entry_time: new Date(entryMs).toISOString(),
    entry_price: entry,
    exit_time: new Date(exitMs).toISOString(),
    exit_price: exit,
    exit_reason: exitReasonOf(last, marks),
    pnl,
    commission: round(commission, 2),
    swap: round(swap, 2),
    // A trade out at its entry with nothing to pay made 0 R, though its deals tell no money per price unit.
    r_multiple: riskMoney > 0 ? round(pnl / riskMoney, 4) : signal && pnl === 0 && entry !== signal.stop_loss ? 0 : null,
    duration_seconds: Math.round((exitMs - entryMs) / 1000),
  };
}

/** Journals the strategy's closed live positions from the execution service's deals, on the leader, every `intervalMs`. */
export class LiveJournal {
  /** Positions whose entry is not one of the strategy's orders (or older than the look-back): not read again. */
  private readonly notOurs = new Set<string>();
  private syncedTo: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(private readonly o: LiveJournalOptions) {}

  start(): void {
    this.timer ??= setInterval(() => {
      if (this.o.isLeading()) void this.sync().catch(() => undefined);
    }, this.o.intervalMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /**
   * Sends a flatten (`send`: the execution service's close-all of the strategy's positions) and,
   * once it has answered, journals what it closed at once rather than at the next sync. Its
   * reason, `flatten`, comes from the execution service's records, as every reason does.
   */
  flatten<T>(send: () => Promise<T>): Promise<T> {
    const sent = send();
    void sent.then(() => this.sync()).catch(() => undefined);
    return sent;
  }

  /** Reads the deals since the last read and journals the positions they closed; how many trades it journaled. One read at a time. */
  sync(): Promise<number> {
    this.running ??= this.read()
      .catch((err: unknown) => {
        if (!(err instanceof ServiceError)) throw err;
        this.o.logger.warn({ err }, 'live journal: reading the execution service’s deals failed (read again at the next sync)');
        return 0;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async read(): Promise<number> {
    const now = this.o.now();
    // The range ends before `to`: a deal made at this very instant (a close the strategy just asked for) is in it.
    const end = now + 1;
    const from = Math.max(end - LOOKBACK_MS, (this.syncedTo ?? 0) - OVERLAP_MS);
    const closing = new Set<string>();
    const to = new Date(end).toISOString();
    for (const deal of await this.deals({ from: new Date(from).toISOString(), to })) {
      if (deal.entry !== 'in' && deal.position !== null) closing.add(deal.position);
    }
    let journaled = 0;
    for (const position of closing) {
      if (this.notOurs.has(position) || (await this.o.journal.has(`live:${position}`))) continue;
      const signal = (await this.o.signals.byPositions([position])).get(position);
      const deals = await this.positionDeals(position, end, signal);
      if (!deals.some((d) => d.entry === 'in')) {
        this.notOurs.add(position);
        continue;
      }
      const trade = liveTradeOf(position, deals, signal, await this.marksOf(position));
      if (trade && (await this.o.journal.record(trade))) {
        journaled++;
        await this.o.onJournaled?.(trade);
      }
    }
    this.syncedTo = now;
    return journaled;
  }

  /**
   * What the strategy did to the position, from the execution service's records of the actions on
   * its ticket (kept across restarts and shared by every replica): the newest page holds its last
   * close and the last move of its stop.
   */
  private async marksOf(position: string): Promise<ExitMarks> {
    return exitMarksOf((await this.o.execution.actions({ ticket: position, limit: ACTIONS_READ })).actions);
  }

  /**
   * A position's deals of the strategy's source up to `end`: the last range one read takes, then,
   * for a position of a signal's, the ranges before it while its opening deal is not among them (a
   * position held longer than that), back to a day before the signal. A position without one (of
   * another source, or opened by hand) is read over the last range only: another source's deals
   * are none, so each would cost every range back.
   */
  private async positionDeals(position: string, end: number, signal: StrategySignal | undefined): Promise<Deal[]> {
    const read = (fromMs: number, toMs: number) =>
      this.deals({ position, source: this.o.source, from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString() });
    let from = end - LOOKBACK_MS;
    const oldest = signal ? Date.parse(signal.generated_at) - DAY_MS : from;
    const deals = await read(from, end);
    while (!deals.some((d) => d.entry === 'in') && from > oldest) {
      const before = Math.max(from - LOOKBACK_MS, oldest);
      deals.unshift(...(await read(before, from)));
      from = before;
    }
    return deals;
  }

  /** Every deal of the query, page after page. */
  private async deals(query: { from: string; to: string; position?: string; source?: string }): Promise<Deal[]> {
    const deals: Deal[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page: DealList = await this.o.execution.deals({ ...query, limit: 500, cursor });
      deals.push(...page.deals);
      if (page.next_cursor === null) return deals;
      cursor = page.next_cursor;
    }
  }
}
