/**
 * The strategy lab's shared shapes: what a backtest takes (candles, rules, fill model) and what it
 * gives (trades, equity, metrics). The runner is backtest.ts; the README's "The strategy lab"
 * says how it trades and how the metrics are computed.
 */
import type { MarketCandle } from '../market-source.js';
import type { CandleColumns } from './columns.js';
import type { ExitReason, Timeframe } from '@fxdesk/schemas';
import type { StrategyRules } from '../rules.js';
import type { SignalDecision } from '../signal-rule.js';
import type { LabSkips } from '@fxdesk/schemas';
import type { FillModel, VolumeTerms } from '@fxdesk/trading';

export type { StrategyRules } from '../rules.js';
export type { ExitReason } from '@fxdesk/schemas';
export type { FillModel, FillVolume } from '@fxdesk/trading';

/** A closed candle with the provider's spread, as the live engine reads it (market-source.ts). */
export type LabCandle = MarketCandle;

export type TradeSide = 'LONG' | 'SHORT';

/** One backtest trade. Times are ISO 8601, the open time of the candle the event happened in. */
export interface Trade {
  instrument: string;
  side: TradeSide;
  /** The candle the signal was decided on (its candle_time). */
  signal_time: string;
  /** The next candle: the entry is at its open. */
  entry_time: string;
  entry_price: number;
  /** The candle it left in: its stop or target reached, or the open a time or opposite-signal exit filled at (end_of_data: the last candle). */
  exit_time: string;
  exit_price: number;
  exit_reason: ExitReason;
  volume_lots: number;
  /** In the account currency, net of the commission. */
  pnl: number;
  /** pnl divided by the risk taken at the entry (entry to stop, the same lots and conversion). */
  r_multiple: number;
  /** From the entry candle's open to the exit candle's close. */
  duration_seconds: number;
  /** In the account currency (included in pnl). */
  commission: number;
}

/** The account's equity after the candles of one time, marked to market at their closes. */
export interface EquityPoint {
  /** ISO 8601 open time of the candles it was marked after. */
  time: string;
  equity: number;
  /** Below the highest equity so far, in the account currency (≥ 0). */
  drawdown: number;
  /** The drawdown as a percentage of that highest equity (0..100). */
  drawdown_percent: number;
}

/** The results of a backtest, overall or of one pair. Ratios are fractions (0.55 = 55 %). */
export interface Metrics {
  /** final_equity − initial balance. */
  net_profit: number;
  trade_count: number;
  /** Winning trades (pnl > 0) / trade_count; 0 without trades. */
  win_rate: number;
  /** gross_profit / gross_loss; null without a losing trade. */
  profit_factor: number | null;
  /** Mean pnl per trade; 0 without trades. */
  expectancy: number;
  /** Mean r_multiple; 0 without trades. */
  average_r: number;
  /** Largest fall from a running peak of the equity, in the account currency. */
  max_drawdown: number;
  /** Largest fall from a running peak as a percentage of that peak (0..100). */
  max_drawdown_percent: number;
  /** Annualised (× √252) mean / sample stdev of daily returns; null with fewer than 2 days or no variation. */
  sharpe: number | null;
  /** Annualised mean / downside deviation of daily returns; null with fewer than 2 days or no losing day. */
  sortino: number | null;
  /** (final / initial)^(1 / years of the window) − 1; null when the initial balance is not positive. */
  cagr: number | null;
  /** Fraction of the window's candle time with a position open (0..1). */
  exposure: number;
  longest_losing_streak: number;
  /** Sum of the winning trades' pnl. */
  gross_profit: number;
  /** Sum of the losing trades' pnl, as a positive amount. */
  gross_loss: number;
  final_equity: number;
}

export interface BacktestMetrics {
  overall: Metrics;
  /** By instrument. */
  per_pair: Record<string, Metrics>;
  /** Signals skipped by reason (LAB_SKIP_REASONS), overall and by instrument; absent on a backtest run before issue 24. */
  skipped?: { overall: LabSkips; per_pair: Record<string, LabSkips> };
}

export interface BacktestResult {
  /** In entry order. */
  trades: Trade[];
  /** At most MAX_EQUITY_POINTS (+ the first and last), oldest first. */
  equity: EquityPoint[];
  metrics: BacktestMetrics;
  /** Signals the rule gave in the window (traded or not). */
  signals: number;
  /** Signals not traded: a position already open on the pair, stops on the wrong side of the fill, a limit, a volume that rounds to 0 (by reason: metrics.skipped). */
  skipped_signals: number;
  /** Candles of the window processed (all pairs). */
  candles: number;
}

/** Units of currency `to` for one unit of `from` at `timeSec` (epoch s), when known. */
export interface ConversionRates {
  rate(from: string, to: string, timeSec: number): number | undefined;
}

export interface BacktestPair {
  /** `EUR_USD`. */
  instrument: string;
  /** The broker symbol. */
  symbol: string;
  /** Decimal places of its prices. */
  digits: number;
  /** Closed candles, oldest first: the warm-up before fromSec, then the window. */
  candles: CandleColumns;
}

export interface BacktestInput {
  timeframe: Timeframe;
  pairs: BacktestPair[];
  rules: StrategyRules;
  fills: FillModel;
  initialBalance: number;
  /** 'USD' (the paper account's currency). */
  accountCurrency: string;
  /** The decision window: signals only on candles with fromSec ≤ time < toSec. */
  fromSec: number;
  toSec: number;
  /** Quote currency → account currency at a time. */
  rates: ConversionRates;
  /** The venue's volume terms by instrument (lab/symbol-terms.ts): sizing by risk (rules.riskPercent) needs each traded pair's. */
  terms?: Readonly<Record<string, VolumeTerms>>;
  /**
   * The account's leverage (PAPER_LEVERAGE, or the request's): an entry whose margin does not fit
   * the free margin (the equity before its candle less the margin the open positions hold) is
   * skipped, insufficient_margin. Absent: no margin is held.
   */
  leverage?: number;
  /** When the trading day of the daily loss limit starts (RISK_DAY_ROLL_HOUR, RISK_DAY_TIME_ZONE); default 17:00 New York. */
  riskDay?: { rollHour: number; timeZone: string };
  /** At most ~100 calls, fraction 0..1. */
  onProgress?: (fraction: number) => void;
  /** Checked every few thousand candles; true stops the run with BacktestCancelledError. */
  isCancelled?: () => boolean;
  /** Told each signal the rule gives in the window, traded or not, with the open time of its candle. */
  onSignal?: (instrument: string, candleTimeSec: number, decision: SignalDecision) => void;
}

/** A backtest in a form that crosses a thread boundary: no functions (the candles' columns are shared memory). */
export interface BacktestJob extends Omit<BacktestInput, 'rates' | 'onProgress' | 'isCancelled' | 'onSignal'> {
  /** Candles of the pairs the conversion needs that are not traded (e.g. GBP_USD for EUR_GBP). */
  conversion: BacktestPair[];
}
