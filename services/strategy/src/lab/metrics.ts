/**
 * A backtest's metrics (README "How a backtest trades"), pure: the trade statistics from the
 * trades, the drawdowns, daily returns and exposure from the equity marked after every candle.
 */
import type { Metrics, Trade } from './types.js';

/** What the trade statistics read of a trade: a backtest's, or a journal's. */
export type ScoredTrade = Pick<Trade, 'pnl' | 'r_multiple'>;

/** Sharpe and Sortino are annualised with √252 trading days. */
export const TRADING_DAYS_PER_YEAR = 252;
const SECONDS_PER_DAY = 86_400;
/** 1970-01-01 was a Thursday: epoch day d falls on weekday (d + 4) % 7, 0 being Sunday. */
const EPOCH_WEEKDAY = 4;

/**
 * The start (epoch s) of the day after the one `timeSec` counts in: days are UTC days, but
 * Sunday's hours (the market opens Sunday evening, 21:00–22:00 UTC) count with Monday's, as the FX
 * trading day that opens then does, so a week of trading is five days (about 260 a year, against
 * the √252 the ratios are annualised with) and not six, the sixth a two-hour stub. Saturday, which
 * has marks only on a market that never closes, is a day of its own.
 */
export function nextDayStart(timeSec: number): number {
  const day = Math.floor(timeSec / SECONDS_PER_DAY);
  const isSunday = (day + EPOCH_WEEKDAY) % 7 === 0;
  return (day + (isSunday ? 2 : 1)) * SECONDS_PER_DAY;
}
/** CAGR's year: 365.25 days of the window. */
const SECONDS_PER_YEAR = 365.25 * SECONDS_PER_DAY;

/**
 * An equity curve as it is marked, time after time: the running peak and the largest drawdowns
 * (absolute and as a percentage of the peak, each its own maximum), the equity at each day's last
 * mark (a UTC day, Sunday's hours counted with Monday: nextDayStart), and how many marks had a position open. O(1) per mark; one number per day kept.
 */
export class EquityCurve {
  peak: number;
  /** Of the last mark. */
  drawdown = 0;
  drawdownPercent = 0;
  maxDrawdown = 0;
  maxDrawdownPercent = 0;
  marks = 0;
  exposedMarks = 0;
  /** The equity at the last mark of each UTC day, oldest first (the current day's once finished). */
  readonly dayCloses: number[] = [];
  /** The latest mark. */
  equity: number;
  timeSec = Number.NaN;
  /** Start of the UTC day after the latest mark's (epoch s). */
  private nextDaySec = Number.NEGATIVE_INFINITY;

  constructor(readonly initial: number) {
    this.peak = initial;
    this.equity = initial;
  }

  /** Marks are in time order. O(1); an unchanged equity within the same day costs two comparisons. */
  mark(timeSec: number, equity: number, isExposed: boolean): void {
    this.marks++;
    if (isExposed) this.exposedMarks++;
    this.timeSec = timeSec;
    if (timeSec >= this.nextDaySec) {
      if (this.marks > 1) this.dayCloses.push(this.equity);
      this.nextDaySec = nextDayStart(timeSec);
    } else if (equity === this.equity) {
      return; // the drawdowns stand as they are
    }
    this.equity = equity;
    if (equity >= this.peak) {
      this.peak = equity;
      this.drawdown = 0;
      this.drawdownPercent = 0;
      return;
    }
    const drawdown = this.peak - equity;
    const percent = this.peak > 0 ? (drawdown / this.peak) * 100 : 0;
    this.drawdown = drawdown;
    this.drawdownPercent = percent;
    if (drawdown > this.maxDrawdown) this.maxDrawdown = drawdown;
    if (percent > this.maxDrawdownPercent) this.maxDrawdownPercent = percent;
  }

  /** Every day's closing equity, the current day's included. */
  dailyEquity(): number[] {
    return this.marks > 0 ? [...this.dayCloses, this.equity] : [];
  }
}

/**
 * Daily returns r_i = E_i / E_(i−1) − 1 of the equity at each day's last mark (nextDayStart), E_0 being the
 * initial balance. Sharpe = mean / sample standard deviation × √252; Sortino = mean / downside
 * deviation × √252, the downside deviation being the root mean square of min(r_i, 0) over all
 * days; risk-free rate 0. Null with fewer than 2 days, or when the deviation is 0.
 */
export function dailyRatios(initial: number, dailyEquity: readonly number[]): { sharpe: number | null; sortino: number | null } {
  const n = dailyEquity.length;
  if (n < 2 || !(initial > 0)) return { sharpe: null, sortino: null };
  const returns = new Float64Array(n);
  let previous = initial;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const equity = dailyEquity[i]!;
    if (!(previous > 0)) return { sharpe: null, sortino: null };
    returns[i] = equity / previous - 1;
    sum += returns[i]!;
    previous = equity;
  }
  const mean = sum / n;
  let squares = 0;
  let downside = 0;
  for (const r of returns) {
    squares += (r - mean) ** 2;
    if (r < 0) downside += r * r;
  }
  const stdev = Math.sqrt(squares / (n - 1));
  const downsideDeviation = Math.sqrt(downside / n);
  const annual = Math.sqrt(TRADING_DAYS_PER_YEAR);
  return {
    sharpe: stdev > 0 ? (mean / stdev) * annual : null,
    sortino: downsideDeviation > 0 ? (mean / downsideDeviation) * annual : null,
  };
}

/**
 * (final / initial)^(1 / years) − 1 over the window's length; −1 when the equity is gone; null
 * when it cannot be said, or over less than a day: a few minutes' P/L compounded over a year reads
 * as −100 % or as millions of percent, which says nothing of the strategy.
 */
export function cagrOf(initial: number, final: number, windowSeconds: number): number | null {
  if (!(initial > 0) || !(windowSeconds >= SECONDS_PER_DAY)) return null;
  if (final <= 0) return -1;
  const cagr = (final / initial) ** (SECONDS_PER_YEAR / windowSeconds) - 1;
  return Number.isFinite(cagr) ? cagr : null;
}

/** The statistics of a list of trades, in the order they closed. */
export function tradeStats(
  trades: readonly ScoredTrade[],
): Pick<Metrics, 'trade_count' | 'win_rate' | 'profit_factor' | 'expectancy' | 'average_r' | 'longest_losing_streak' | 'gross_profit' | 'gross_loss'> {
  let wins = 0;
  let grossProfit = 0;
  let grossLoss = 0;
  let sumR = 0;
  let streak = 0;
  let longest = 0;
  for (const trade of trades) {
    sumR += trade.r_multiple;
    if (trade.pnl > 0) {
      wins++;
      grossProfit += trade.pnl;
    } else if (trade.pnl < 0) {
      grossLoss -= trade.pnl;
    }
    streak = trade.pnl < 0 ? streak + 1 : 0;
    if (streak > longest) longest = streak;
  }
  const n = trades.length;
  return {
    trade_count: n,
    win_rate: n > 0 ? wins / n : 0,
    profit_factor: grossLoss > 0 ? grossProfit / grossLoss : null,
    expectancy: n > 0 ? (grossProfit - grossLoss) / n : 0,
    average_r: n > 0 ? sumR / n : 0,
    longest_losing_streak: longest,
    gross_profit: grossProfit,
    gross_loss: grossLoss,
  };
}

const money = (v: number) => Math.round(v * 100) / 100;
const ratio = (v: number | null) => (v === null ? null : Math.round(v * 10_000) / 10_000);

/**
 * The metrics of a run (or of one pair): `trades` in the order they closed, `curve` the equity
 * marked over the window (for one pair: the initial balance plus that pair's P/L).
 */
export function metricsOf(trades: readonly ScoredTrade[], curve: EquityCurve, finalEquity: number, windowSeconds: number): Metrics {
  const stats = tradeStats(trades);
  const daily = dailyRatios(curve.initial, curve.dailyEquity());
  return {
    net_profit: money(finalEquity - curve.initial),
    trade_count: stats.trade_count,
    win_rate: ratio(stats.win_rate)!,
    profit_factor: ratio(stats.profit_factor),
    expectancy: money(stats.expectancy),
    average_r: ratio(stats.average_r)!,
    max_drawdown: money(curve.maxDrawdown),
    max_drawdown_percent: ratio(curve.maxDrawdownPercent)!,
    sharpe: ratio(daily.sharpe),
    sortino: ratio(daily.sortino),
    cagr: ratio(cagrOf(curve.initial, finalEquity, windowSeconds)),
    exposure: curve.marks > 0 ? ratio(curve.exposedMarks / curve.marks)! : 0,
    longest_losing_streak: stats.longest_losing_streak,
    gross_profit: money(stats.gross_profit),
    gross_loss: money(stats.gross_loss),
    final_equity: money(finalEquity),
  };
}
