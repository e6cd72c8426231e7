/**
 * The trade journal's reads (README "The trade journal"): pages and CSV of the closed trades, and
 * a range's performance, with the lab's metrics computed over the journal's realized equity.
 */
import { Readable } from 'node:stream';
import {
  JournalTradeSchema,
  type JournalAccount,
  type JournalPage,
  type JournalQuery,
  type JournalTrade,
  type Performance,
  type PerformanceQuery,
} from '@fxdesk/schemas';
import { refuseParameter } from './errors.js';
import { EquityCurve, metricsOf } from './lab/metrics.js';
import type { JournalCursor, JournalFilter, JournalStore } from './store/journal.js';

const DAY_MS = 86_400_000;
/** Trades read at a time for CSV and performance: each page is one query, with a turn of the event loop between them. */
const READ_PAGE = 500;
/** The CSV's columns: JournalTrade's, in its order. */
const CSV_COLUMNS = Object.keys(JournalTradeSchema.shape) as ReadonlyArray<keyof JournalTrade>;

export interface JournalReadsOptions {
  journal: JournalStore;
  /** The paper account's starting balance (PAPER_BALANCE). */
  paperBalance: number;
  /** The live account's balance now (throws the downstream failure when it cannot be read). */
  liveBalance: () => Promise<number>;
  now: () => number;
}

const money = (v: number) => Math.round(v * 100) / 100;
const iso = (ms: number) => new Date(ms).toISOString();

/** The cursor of a page, as the API shows it (opaque). */
export function encodeJournalCursor(cursor: JournalCursor): string {
  return Buffer.from(`j${cursor.exitMs}.${cursor.seq}`, 'utf8').toString('base64url');
}

function decodeJournalCursor(text: string): JournalCursor {
  const m = /^j(\d{1,15})\.(\d{1,15})$/.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (!m) refuseParameter('query.cursor', 'not a cursor this service issued');
  return { exitMs: Number(m[1]), seq: Number(m[2]) };
}

function rangeOf(query: { from?: string; to?: string }): { fromMs?: number; toMs?: number } {
  const fromMs = query.from === undefined ? undefined : Date.parse(query.from);
  const toMs = query.to === undefined ? undefined : Date.parse(query.to);
  if (fromMs !== undefined && toMs !== undefined && !(fromMs < toMs)) {
    refuseParameter('query.from', 'must be before to');
  }
  return { fromMs, toMs };
}

function filterOf(query: JournalQuery): JournalFilter {
  return { account: query.account, instrument: query.instrument, side: query.side, exitReason: query.exit_reason, ...rangeOf(query) };
}

/** A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180). */
function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const csvLine = (values: ReadonlyArray<string | number | null | undefined>) => `${values.map(csvField).join(',')}\r\n`;

/** Monday 00:00 UTC of the week of `ms`. */
function weekStartMs(ms: number): number {
  const day = Math.floor(ms / DAY_MS);
  // 1970-01-01 was a Thursday: (day + 3) % 7 is 0 on Mondays.
  return (day - ((day + 3) % 7)) * DAY_MS;
}

function byPeriod(trades: readonly JournalTrade[], startOf: (ms: number) => number): Performance['pnl_by_day'] {
  const periods = new Map<number, { pnl: number; trades: number }>();
  for (const trade of trades) {
    const start = startOf(Date.parse(trade.exit_time));
    const period = periods.get(start) ?? { pnl: 0, trades: 0 };
    period.pnl += trade.pnl;
    period.trades++;
    periods.set(start, period);
  }
  return [...periods].sort((a, b) => a[0] - b[0]).map(([start, p]) => ({ start: iso(start).slice(0, 10), pnl: money(p.pnl), trades: p.trades }));
}

/** The share of [fromMs, toMs) with at least one trade open (the union of their entry–exit spans). */
function exposureOf(trades: readonly JournalTrade[], fromMs: number, toMs: number): number {
  const spans = trades
    .map((t) => [Math.max(fromMs, Date.parse(t.entry_time)), Math.min(toMs, Date.parse(t.exit_time))] as const)
    .filter(([a, b]) => b > a)
    .sort((a, b) => a[0] - b[0]);
  let covered = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const [a, b] of spans) {
    if (b <= end) continue;
    covered += b - Math.max(a, end);
    end = b;
  }
  return toMs > fromMs ? Math.round((covered / (toMs - fromMs)) * 10_000) / 10_000 : 0;
}

const SATURDAY = 6;

/**
 * The lab's metrics over closed trades (oldest exit first): the equity starts at `initial` and
 * moves by each trade's P/L at its exit; it is also marked at each UTC day's end of the range but
 * Saturday's (the market is closed), so the daily returns (Sharpe, Sortino) count the trading days
 * without a trade, as a backtest's do (Sunday's hours count with Monday: nextDayStart).
 */
export function performanceOf(account: JournalAccount, trades: readonly JournalTrade[], initial: number, fromMs: number, toMs: number): Performance {
  const curve = new EquityCurve(initial);
  const equity: Performance['equity'] = [];
  let balance = initial;
  let next = 0;
  for (let dayEnd = Math.floor(fromMs / DAY_MS) * DAY_MS + DAY_MS; ; dayEnd += DAY_MS) {
    const until = Math.min(dayEnd, toMs);
    for (; next < trades.length && Date.parse(trades[next]!.exit_time) < until; next++) {
      const trade = trades[next]!;
      balance += trade.pnl;
      curve.mark(Date.parse(trade.exit_time) / 1000, balance, true);
      equity.push({ time: trade.exit_time, equity: money(balance) });
    }
    if (new Date(until - 1).getUTCDay() !== SATURDAY) curve.mark((until - 1) / 1000, balance, false);
    if (until >= toMs) break;
  }
  const labTrades = trades.map((t) => ({ pnl: t.pnl, r_multiple: t.r_multiple ?? 0 }));
  const metrics = metricsOf(labTrades, curve, balance, (toMs - fromMs) / 1000);
  return {
    account,
    from: iso(fromMs),
    to: iso(toMs),
    initial_equity: money(initial),
    metrics: { ...metrics, exposure: exposureOf(trades, fromMs, toMs) },
    equity,
    pnl_by_day: byPeriod(trades, (ms) => Math.floor(ms / DAY_MS) * DAY_MS),
    pnl_by_week: byPeriod(trades, weekStartMs),
  };
}

/** GET /trades and GET /performance over the journal. */
export class JournalReads {
  constructor(private readonly o: JournalReadsOptions) {}

  async page(query: JournalQuery): Promise<JournalPage> {
    const page = await this.o.journal.page(filterOf(query), query.limit, query.cursor === undefined ? undefined : decodeJournalCursor(query.cursor));
    return { trades: page.trades, next_cursor: page.next && encodeJournalCursor(page.next) };
  }

  /** Every trade the query matches as CSV (newest first), read a page at a time while it is sent. */
  csv(query: JournalQuery): Readable {
    const filter = filterOf(query);
    const journal = this.o.journal;
    let cursor = query.cursor === undefined ? undefined : decodeJournalCursor(query.cursor);
    async function* lines(): AsyncGenerator<string> {
      yield csvLine(CSV_COLUMNS);
      for (;;) {
        const page = await journal.page(filter, READ_PAGE, cursor);
        yield page.trades.map((t) => csvLine(CSV_COLUMNS.map((c) => t[c]))).join('');
        if (!page.next) return;
        cursor = page.next;
      }
    }
    return Readable.from(lines());
  }

  async performance(query: PerformanceQuery): Promise<Performance> {
    const range = rangeOf(query);
    const toMs = range.toMs ?? this.o.now();
    const fromMs = range.fromMs ?? (await this.o.journal.firstExitMs(query.account)) ?? toMs - DAY_MS;
    if (!(fromMs < toMs)) {
      refuseParameter('query.from', 'must be before to (or now)');
    }
    const trades = await this.allBetween(query.account, fromMs, toMs);
    return performanceOf(query.account, trades, await this.initialEquity(query.account, fromMs), fromMs, toMs);
  }

  /** The balance at `fromMs`: the paper account's start plus what it made before; the live balance now less what it made since. */
  private async initialEquity(account: JournalAccount, fromMs: number): Promise<number> {
    if (account === 'paper') return this.o.paperBalance + (await this.o.journal.pnlSum('paper', 0, fromMs));
    return (await this.o.liveBalance()) - (await this.o.journal.pnlSum('live', fromMs));
  }

  /** The account's trades with an exit in [fromMs, toMs), oldest first. */
  private async allBetween(account: JournalAccount, fromMs: number, toMs: number): Promise<JournalTrade[]> {
    const pages: JournalTrade[][] = [];
    let cursor: JournalCursor | undefined;
    for (;;) {
      const page = await this.o.journal.page({ account, fromMs, toMs }, READ_PAGE, cursor);
      pages.push(page.trades);
      if (!page.next) break;
      cursor = page.next;
    }
    return pages.flat().reverse();
  }
}
