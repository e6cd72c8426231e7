/**
 * The strategy lab's runner: a backtest of the live strategy's own per-pair code (PairTracker's
 * one-candle path and the same `decide`) over closed candles, with the fill model of fills.ts and
 * the metrics of metrics.ts. Synchronous, pure and deterministic: the same input, the same result.
 * README "The strategy lab" says how it trades.
 */
import { EXIT_REASONS, LAB_SKIP_REASONS, TIMEFRAME_SECONDS, type LabSkipReason, type LabSkips } from '@fxdesk/schemas';
import {
  baseToAccountOf,
  commissionOf,
  contractSize,
  fitsMargin,
  marginOf,
  markPrice,
  money,
  PairPosition,
  pnlOf,
  pricingOf,
  RiskBook,
  riskLots,
  rMultipleOf,
  volumeLots,
  type FillCandle,
  type PairPricing,
  type PositionHooks,
  type RiskEntry,
  type RiskLimits,
  type RiskSkip,
  type SizingSkip,
  type SkipWhy,
  type VolumeTerms,
} from '@fxdesk/trading';
import { PairTracker, trackerSettingsOf } from '../pair-tracker.js';
import { exitRulesOf, riskRulesOf, type RiskRules } from '../rules.js';
import { decide, ruleSettingsOf, type RuleSettings, type SignalDecision } from '../signal-rule.js';
import { candleAt, firstAtOrAfter, type CandleColumns } from './columns.js';
import { EquityCurve, metricsOf } from './metrics.js';
import type {
  BacktestInput,
  BacktestJob,
  BacktestMetrics,
  BacktestPair,
  BacktestResult,
  ConversionRates,
  EquityPoint,
  ExitReason,
  LabCandle,
  Trade,
} from './types.js';

export type * from './types.js';

/** Equity points a result keeps at most (plus the first and the last). */
export const MAX_EQUITY_POINTS = 5000;
/** Candles between two looks at isCancelled and the progress. */
const CHECK_EVERY = 4096;
/**
 * The progress the first pass (the indicators and the rule, pair by pair) reports up to; the
 * second (the account over the merged candles) takes the rest. About their shares of the time.
 */
const SIGNAL_PASS_SHARE = 0.8;

/** Thrown by runBacktest when its isCancelled answered true. */
export class BacktestCancelledError extends Error {
  constructor() {
    super('the backtest was cancelled');
    this.name = 'BacktestCancelledError';
  }
}

/** How a pair's P/L (in its quote currency) becomes the account currency. */
const enum Conversion {
  /** The quote is the account currency (EUR_USD for USD). */
  None,
  /** The base is the account currency (USD_JPY for USD): divide by the pair's own price. */
  OwnPrice,
  /** A cross (EUR_GBP for USD): the quote's rate through `rates`. */
  Rates,
}

/** What the first pass found on a candle of the window. */
const enum Found {
  /** The tracker took it; the rule gave no signal. */
  Nothing,
  /** The tracker refused it (malformed, or not newer than the one before): the account passes over it too. */
  Refused,
  /** The rule gave a signal on it. */
  Decision,
}

/** Each skip reason's place in a pair's counts. */
const SKIP = Object.fromEntries(LAB_SKIP_REASONS.map((reason, i) => [reason, i])) as Record<LabSkipReason, number>;
/** RiskBook's refusals as the lab counts them (a halt is counted under what halted it). */
const RISK_SKIP: Record<Exclude<RiskSkip, 'halted'>, number> = {
  position_open_on_pair: SKIP.position_open,
  max_open_trades: SKIP.max_open_trades,
  currency_exposure: SKIP.currency_exposure,
  cooldown: SKIP.cooldown,
};
/** riskLots' skips; the lab throws before a rate is missing (toAccount), so no_conversion_rate never comes. */
const SIZING_SKIP: Record<SizingSkip, number> = {
  volume_rounds_to_zero: SKIP.volume_rounds_to_zero,
  volume_below_minimum: SKIP.volume_below_minimum,
  no_risk_at_stop: SKIP.no_risk_at_stop,
  no_conversion_rate: SKIP.no_risk_at_stop,
};

/** The risk rules as RiskBook's limits (one position per pair: the lab's always); null when none is on. */
function riskLimitsOf(risk: RiskRules): RiskLimits | null {
  const on = (v: number) => (v > 0 ? v : null);
  const limits: RiskLimits = {
    onePositionPerPair: true,
    maxOpenTrades: on(risk.maxOpenTrades),
    maxCurrencyExposureLots: on(risk.maxCurrencyExposureLots),
    dailyLossLimitPercent: on(risk.dailyLossLimitPercent),
    maxDrawdownPercent: on(risk.maxDrawdownPercent),
    cooldown: risk.cooldownLosses > 0 && risk.cooldownCandles > 0 ? { losses: risk.cooldownLosses, candles: risk.cooldownCandles } : null,
  };
  const isAnyOn =
    limits.maxOpenTrades !== null ||
    limits.maxCurrencyExposureLots !== null ||
    limits.dailyLossLimitPercent !== null ||
    limits.maxDrawdownPercent !== null ||
    limits.cooldown !== null;
  return isAnyOn ? limits : null;
}

/** One pair's state in a run; mutated in place, so a candle allocates nothing here. */
class PairRun implements PositionHooks {
  readonly tracker: PairTracker;
  readonly settings: RuleSettings;
  readonly pricing: PairPricing;
  /** The venue's volume terms (input.terms), which sizing by risk reads; null when the run sizes by fixed lots without them. */
  readonly terms: VolumeTerms | null;
  /** The venue's contract size, else the fill model's guess (fixed lots only). */
  readonly unitsPerLot: number;
  readonly quote: string;
  readonly conversion: Conversion;
  /** The window's candles are candles[windowStart, windowEnd). */
  readonly windowStart: number;
  readonly windowEnd: number;
  readonly curve: EquityCurve;
  /** The pair's position under the fill model and the exit rules (@fxdesk/trading), the run its account. */
  readonly position: PairPosition;
  realized = 0;
  unrealized = 0;
  units = 0;
  /** The open trade's place in the entry order. */
  slot = 0;
  /** Whether a position was open at some time during the candle being traded. */
  wasOpen = false;
  /** The Supertrend's ATR after each candle of the window (NaN while warming up), kept only when a trailing stop reads it. */
  readonly atr: Float64Array | null;
  /** The index of the last candle of the window taken, −1 before it. */
  lastIndex = -1;
  /** The candle the second pass is on, written in place from the columns. */
  readonly candle: LabCandle = blankCandle();
  /** What the first pass found on each candle of the window (by index − windowStart): a {@link Found}. */
  readonly found: Uint8Array;
  /**
   * The decisions of the candles found with one, in candle order, as numbers (side, entry, stop, target
   * each: no objects kept over a run), the objects themselves only for an onSignal hook; and the
   * second pass's place in them.
   */
  readonly decisions: number[] = [];
  readonly signals: SignalDecision[] | null;
  nextDecision = 0;
  readonly candles: CandleColumns;
  /**
   * The two candles the first pass feeds the tracker in turn, written in place from the columns:
   * the tracker keeps the last one it took (the next must be newer), so the next is written into
   * the other.
   */
  private taken: LabCandle = blankCandle();
  private spare: LabCandle = blankCandle();
  /** The entry RiskBook is asked about and told of: one per pair, as its position. */
  readonly riskEntry: RiskEntry;
  /** Signals skipped, by reason (LAB_SKIP_REASONS' order). */
  readonly skips = new Int32Array(LAB_SKIP_REASONS.length);
  /** Why lotsFor answered 0 (a SKIP index), −1 when it did not. */
  refusal = -1;
  /** The quote's rate into the account currency at the open lotsFor last sized at; the margin of its position is taken at it. */
  entryRate = 1;
  /** The margin its open position holds (0 when flat or without a leverage). */
  margin = 0;
  constructor(
    readonly pair: BacktestPair,
    /** Its place in the input's pairs. */
    readonly index: number,
    input: BacktestInput,
    private readonly run: Run,
  ) {
    const { rules, fills, accountCurrency, fromSec, toSec } = input;
    this.tracker = new PairTracker(pair.instrument, pair.symbol, pair.digits, trackerSettingsOf(rules, input.timeframe, 0));
    this.settings = ruleSettingsOf(rules, pair.digits);
    this.terms = input.terms?.[pair.instrument] ?? null;
    // Sizing by risk, on the venue's terms (as paper reads them to size): an entry whose stops the venue's stops level refuses is skipped, as live's is refused.
    this.pricing = pricingOf(pair.digits, fills, riskRulesOf(rules).riskPercent > 0 ? this.terms?.stopsLevel : undefined);
    this.unitsPerLot = this.terms?.contractSize ?? contractSize(pair.instrument);
    this.riskEntry = { instrument: pair.instrument, side: 1, lots: 0 };
    const [base, quote] = pair.instrument.split('_') as [string, string];
    this.quote = quote;
    this.conversion = quote === accountCurrency ? Conversion.None : base === accountCurrency ? Conversion.OwnPrice : Conversion.Rates;
    this.candles = pair.candles;
    this.windowStart = firstAtOrAfter(pair.candles.time, fromSec);
    this.windowEnd = firstAtOrAfter(pair.candles.time, toSec);
    this.found = new Uint8Array(Math.max(0, this.windowEnd - this.windowStart));
    this.signals = input.onSignal ? [] : null;
    this.curve = new EquityCurve(input.initialBalance);
    const exits = exitRulesOf(rules);
    this.atr = exits.trailingStopAtr > 0 ? new Float64Array(this.found.length) : null;
    this.position = new PairPosition(this.pricing, exits, pair.digits, this);
  }

  lotsFor(side: 1 | -1, price: number, stop: number, candle: FillCandle): number {
    return this.run.lotsFor(this, side, price, stop, candle as LabCandle);
  }

  /** lotsFor's 0, with why. */
  refuse(reason: number): number {
    this.refusal = reason;
    return 0;
  }

  entered(): void {
    this.wasOpen = true;
    this.units = this.position.lots * this.unitsPerLot;
    this.unrealized = 0;
    this.slot = this.run.opened(this);
  }

  exited(candle: FillCandle, price: number, reason: ExitReason): void {
    this.wasOpen = true;
    this.run.close(this, candle as LabCandle, price, reason);
  }

  skipped(why: SkipWhy): void {
    const reason = why === 'no_lots' ? this.refusal : SKIP[why];
    this.refusal = -1;
    this.run.skip(this, reason);
  }

  /** The warm-up: the candles before the window feed the indicators, nothing else. */
  warmUp(): void {
    for (let i = 0; i < this.windowStart; i++) this.push(i);
  }

  /** Candle `i` through the tracker; whether it took it. */
  private push(i: number): boolean {
    const candle = candleAt(this.candles, i, this.spare);
    if (!this.tracker.push(candle)) return false;
    this.spare = this.taken;
    this.taken = candle;
    return true;
  }

  /** Candle `i` for the second pass (one object, rewritten by the next call). */
  at(i: number): LabCandle {
    return candleAt(this.candles, i, this.candle);
  }

  /**
   * The first pass over the window's candles [from, to): the live engine's path for each, then
   * the rule; what it finds is kept in `found` and `decisions`.
   */
  scan(from: number, to: number): void {
    const { tracker, settings, found, windowStart, atr } = this;
    for (let i = from; i < to; i++) {
      if (!this.push(i)) {
        found[i - windowStart] = Found.Refused;
        continue;
      }
      const snapshot = tracker.latest;
      if (atr !== null) atr[i - windowStart] = snapshot === null ? Number.NaN : snapshot.supertrend.atr;
      if (snapshot === null) continue;
      const decision = decide(snapshot, settings);
      if (decision === null) continue;
      found[i - windowStart] = Found.Decision;
      this.decisions.push(decision.type === 'LONG' ? 1 : -1, decision.entry, decision.stopLoss, decision.takeProfit);
      this.signals?.push(decision);
    }
  }
}

function blankCandle(): LabCandle {
  return { time: 0, open: 0, high: 0, low: 0, close: 0, volume: 0, spread: null };
}

/** A mark of the equity curve, kept as numbers until it becomes a point. */
class Mark {
  isSet = false;
  timeSec = 0;
  equity = 0;
  drawdown = 0;
  drawdownPercent = 0;

  set(timeSec: number, equity: number, curve: EquityCurve): void {
    this.isSet = true;
    this.timeSec = timeSec;
    this.equity = equity;
    this.drawdown = curve.drawdown;
    this.drawdownPercent = curve.drawdownPercent;
  }
}

/**
 * What a run keeps of a closed trade until its result builds the Trade, as numbers (Closed.Fields
 * of them a trade, in the order they closed): objects made as trades close would live through the
 * run and be promoted to the old generation, each run's garbage for a major collection.
 */
const enum Closed {
  Pair,
  Slot,
  Side,
  SignalTime,
  EntryTime,
  Entry,
  ExitTime,
  ExitPrice,
  Reason,
  Lots,
  Pnl,
  RMultiple,
  Duration,
  Commission,
  Fields,
}

/** The equity points kept, as numbers (time, equity, drawdown, drawdown %), until the result builds them. */
const POINT_FIELDS = 4;

function pointOf(kept: readonly number[], k: number): EquityPoint {
  return {
    time: iso(kept[k]!),
    equity: money(kept[k + 1]!),
    drawdown: money(kept[k + 2]!),
    drawdown_percent: Math.round(kept[k + 3]! * 10_000) / 10_000,
  };
}

const iso = (timeSec: number) => new Date(timeSec * 1000).toISOString();

class Run {
  /** In the input's order (the result's). */
  private readonly pairs: PairRun[];
  /**
   * In the order the account takes candles of one time: by instrument name, so a result never
   * depends on the order the instruments are listed in (two entries at one open meet the limits
   * in this order).
   */
  private readonly ranked: PairRun[];
  private readonly candleSeconds: number;
  private balance: number;
  private unrealized = 0;
  /**
   * The equity after every candle of the last time marked: what an entry is sized on, known
   * before the candle it fills on (the other pairs' marks at this candle's close are not).
   */
  private equityBefore: number;
  /** The margin the open positions hold (their marginOf at their fills), and the leverage (0: none held). */
  private usedMargin = 0;
  private readonly leverage: number;
  /** Closed where their pair's data ended, not yet told to the limits (bookEnded). */
  private readonly ended: Array<{ instrument: string; pnl: number; exitMs: number }> = [];
  private signals = 0;
  private skipped = 0;
  private candles = 0;
  private readonly curve: EquityCurve;
  private readonly points: number[] = [];
  private bucketSize = 1;
  /** Marks the current bucket still takes (the first mark is kept apart). */
  private bucketLeft = 0;
  /** The lowest mark of the current bucket. */
  private readonly low = new Mark();
  /** Trades entered: the next one's place in the entry order. */
  private entered = 0;
  /** The closed trades, as numbers (see Closed), in the order they closed. */
  private readonly closed: number[] = [];
  /** RISK_PERCENT of the equity at the stop; 0: the fill model's fixed lots. */
  private readonly riskPercent: number;
  /** The limits before every entry and the halt (@fxdesk/trading), as live and paper keep theirs; null when no limit is on. */
  private readonly book: RiskBook | null;

  constructor(private readonly input: BacktestInput) {
    const risk = riskRulesOf(input.rules);
    this.riskPercent = risk.riskPercent;
    this.pairs = input.pairs.map((pair, index) => new PairRun(pair, index, input, this));
    this.ranked = [...this.pairs].sort((a, b) => (a.pair.instrument < b.pair.instrument ? -1 : a.pair.instrument > b.pair.instrument ? 1 : a.index - b.index));
    if ('risk_percent' in input.fills.volume) throw new Error('size by risk with rules.riskPercent: the fill model’s volume takes fixed lots only');
    if (this.riskPercent > 0) {
      const missing = this.pairs.filter((p) => p.terms === null).map((p) => p.pair.instrument);
      if (missing.length > 0) throw new Error(`sizing by risk needs the venue's volume terms of ${missing.join(', ')}`);
    }
    this.candleSeconds = TIMEFRAME_SECONDS[input.timeframe];
    const limits = riskLimitsOf(risk);
    this.book =
      limits === null
        ? null
        : new RiskBook({ limits, candleMs: this.candleSeconds * 1000, dayRollHour: input.riskDay?.rollHour, timeZone: input.riskDay?.timeZone });
    this.balance = input.initialBalance;
    this.equityBefore = input.initialBalance;
    this.leverage = input.leverage ?? 0;
    this.curve = new EquityCurve(input.initialBalance);
  }

  /**
   * Two passes. The rule reads a pair's candles and nothing of the account, so the first runs
   * each pair's tracker and rule over its candles alone (the warm-up, then the window), keeping
   * the decisions and the refused candles; the second trades them on one account, the pairs'
   * candles merged in time order. The result is that of one pass over the merged candles.
   */
  execute(): BacktestResult {
    const { pairs } = this;
    const windowCandles = pairs.reduce((n, p) => n + p.windowEnd - p.windowStart, 0);
    let done = 0;
    let reported = 0;
    for (const p of pairs) {
      p.warmUp();
      for (let i = p.windowStart; i < p.windowEnd; i += CHECK_EVERY) {
        const end = Math.min(i + CHECK_EVERY, p.windowEnd);
        p.scan(i, end);
        done += end - i;
        reported = this.check((SIGNAL_PASS_SHARE * done) / windowCandles, reported);
      }
    }
    return this.trade(windowCandles, reported);
  }

  /** The second pass: the account over the window's candles of all pairs, in time order. */
  private trade(windowCandles: number, reported: number): BacktestResult {
    const { input, pairs, ranked } = this;
    const { order, times } = mergeOrder(pairs, ranked);
    this.bucketSize = Math.max(1, Math.ceil(times / MAX_EQUITY_POINTS));
    const cursors = pairs.map((p) => p.windowStart);
    let time = Number.NaN;
    let isExposed = false;
    for (let n = 0; n < windowCandles; n++) {
      if ((n & (CHECK_EVERY - 1)) === 0 && n > 0) reported = this.check(SIGNAL_PASS_SHARE + ((1 - SIGNAL_PASS_SHARE) * n) / windowCandles, reported);
      const index = order[n]!;
      const p = pairs[index]!;
      const i = cursors[index]!++;
      const candle = p.at(i);
      if (candle.time !== time) {
        if (this.ended.length > 0) this.bookEnded();
        if (!Number.isNaN(time)) this.markEquity(time, isExposed);
        time = candle.time;
        isExposed = false;
      }
      if (this.step(p, candle, i)) isExposed = true;
    }
    // A pair whose last candles were malformed (skipped) still has its position: it ends at its last good one.
    for (const p of ranked) {
      if (!p.position.isOpen || p.lastIndex < 0) continue;
      const last = p.at(p.lastIndex);
      p.position.closeNow(last, markPrice(p.position.side, last, p.pricing), 'end_of_data');
    }
    this.bookEnded();
    if (!Number.isNaN(time)) this.markEquity(time, isExposed);
    this.finishEquity();
    if (reported < 100) input.onProgress?.(1);
    return this.result();
  }

  /** Cancellation and progress (whole percents, so at most 100 calls); the last percent reported. */
  private check(fraction: number, reported: number): number {
    if (this.input.isCancelled?.()) throw new BacktestCancelledError();
    const percent = Math.floor(fraction * 100);
    if (percent > reported) {
      this.input.onProgress?.(percent / 100);
      return percent;
    }
    return reported;
  }

  /**
   * One candle `i` of the window on the account, in the order its prices came (a candle the
   * tracker refused is passed over): the pair's position takes its open and range (an exit decided
   * at the last close, the pending signal's entry, the stop or the target), then its close (the
   * exit rules, on the ATR the first pass kept) and the rule's decision there (the first pass's);
   * the position is marked at the close, and closed there when this is the pair's last candle.
   * Whether a position was open during it.
   */
  private step(p: PairRun, candle: LabCandle, i: number): boolean {
    const found = p.found[i - p.windowStart];
    if (found === Found.Refused) return false;
    this.candles++;
    p.lastIndex = i;
    const position = p.position;
    p.wasOpen = position.isOpen;
    position.onCandle(candle);
    position.onClose(candle, p.atr === null ? Number.NaN : p.atr[i - p.windowStart]!);
    if (found === Found.Decision) {
      const d = p.nextDecision++;
      this.signals++;
      if (p.signals) this.input.onSignal?.(p.pair.instrument, candle.time, p.signals[d]!);
      const at = 4 * d;
      position.onSignal(p.decisions[at]! === 1 ? 1 : -1, p.decisions[at + 1]!, p.decisions[at + 2]!, p.decisions[at + 3]!, candle.time);
    }
    if (position.isOpen) {
      const unrealized = position.side * (markPrice(position.side, candle, p.pricing) - position.entry) * p.units * this.toAccount(p, candle, candle.time);
      this.unrealized += unrealized - p.unrealized;
      p.unrealized = unrealized;
      if (i === p.windowEnd - 1) position.closeNow(candle, markPrice(position.side, candle, p.pricing), 'end_of_data');
    }
    const wasOpen = p.wasOpen || position.isOpen;
    p.curve.mark(candle.time, this.input.initialBalance + p.realized + p.unrealized, wasOpen);
    return wasOpen;
  }

  /**
   * The lots of an entry at `entry` with `stop` on the candle, the one place an entry's size is
   * decided: by risk (riskLots on the venue's terms) or the fill model's fixed lots, on the equity
   * before the candle (equityBefore) and the rate known at the open (the pair's own open, or the conversion pair's last close
   * before it); then the limits (RiskBook.check). 0, with why, skips the signal. Called only at an
   * entry, so what it allocates is not on the candle path.
   */
  lotsFor(p: PairRun, side: 1 | -1, entry: number, stop: number, candle: LabCandle): number {
    const rate = p.conversion === Conversion.OwnPrice ? 1 / candle.open : this.toAccount(p, candle, candle.time - 1);
    const equity = this.equityBefore;
    let lots: number;
    if (this.riskPercent > 0) {
      const sized = riskLots({ equity, riskPercent: this.riskPercent, entry, stop, terms: p.terms as VolumeTerms, quoteToAccount: rate });
      if ('skipped' in sized) return p.refuse(SIZING_SKIP[sized.skipped]);
      lots = Number(sized.lots);
    } else {
      lots = volumeLots(this.input.fills.volume, equity, Math.abs(entry - stop) * p.unitsPerLot * rate);
      if (lots === 0) return p.refuse(SKIP.volume_rounds_to_zero);
    }
    p.entryRate = rate;
    const book = this.book;
    if (book !== null) {
      // Halted, check would answer so before anything else; a halted year skips every signal, so spare it its detail text.
      const halt = book.halt;
      if (halt !== null) return p.refuse(SKIP[halt.reason]);
      p.riskEntry.side = side;
      p.riskEntry.lots = lots;
      const verdict = book.check(p.riskEntry, candle.time * 1000);
      // Not halted (above): a limit's refusal.
      if (!verdict.ok) return p.refuse(RISK_SKIP[verdict.skip as Exclude<RiskSkip, 'halted'>]);
    }
    // The venue's own check, after the desk's: the margin at the signal's entry price must fit the free margin.
    if (this.leverage > 0) {
      const required = marginOf(lots, p.unitsPerLot, baseToAccountOf(p.pair.instrument, this.input.accountCurrency, entry, rate), this.leverage);
      if (!fitsMargin(required, equity, this.usedMargin)) return p.refuse(SKIP.insufficient_margin);
    }
    return lots;
  }

  /** A position opened: the book counts it open; its place in the entry order, filled when it closes (every position closes by the end). */
  opened(p: PairRun): number {
    this.book?.opened(p.pair.instrument, p.riskEntry);
    if (this.leverage > 0) {
      // Held at the fill price, as paper recomputes it from the trade it stores.
      p.margin = marginOf(
        p.position.lots,
        p.unitsPerLot,
        baseToAccountOf(p.pair.instrument, this.input.accountCurrency, p.position.entry, p.entryRate),
        this.leverage,
      );
      this.usedMargin += p.margin;
    }
    return this.entered++;
  }

  skip(p: PairRun, reason: number): void {
    this.skipped++;
    p.skips[reason]!++;
  }

  close(p: PairRun, candle: LabCandle, exitPrice: number, reason: ExitReason): void {
    const position = p.position;
    const rate = this.toAccount(p, candle, candle.time);
    const commission = commissionOf(this.input.fills, position.lots);
    const pnl = pnlOf(position.side, position.entry, exitPrice, p.units, rate, commission);
    this.closed.push(
      p.index,
      p.slot,
      position.side,
      position.signalTime,
      position.entryTime,
      position.entry,
      candle.time,
      exitPrice,
      EXIT_REASONS.indexOf(reason),
      position.lots,
      pnl,
      rMultipleOf(pnl, position.entry, position.initialStop, p.units, rate),
      candle.time + this.candleSeconds - position.entryTime,
      commission,
    );
    // A position the data ends on leaves the limits' count once every pair's candles of that time are in: it frees no place for another pair's entry at it.
    if (reason === 'end_of_data') this.ended.push({ instrument: p.pair.instrument, pnl, exitMs: candle.time * 1000 });
    else this.book?.closed(p.pair.instrument, pnl, candle.time * 1000);
    this.balance += pnl;
    p.realized += pnl;
    this.usedMargin -= p.margin;
    p.margin = 0;
    this.unrealized -= p.unrealized;
    p.unrealized = 0;
  }

  /** The limits told of the positions closed where their data ended. */
  private bookEnded(): void {
    for (const { instrument, pnl, exitMs } of this.ended) this.book?.closed(instrument, pnl, exitMs);
    this.ended.length = 0;
  }

  /** Units of the account currency per unit of the pair's quote currency, at the candle (its close) or at `timeSec` through the rates. */
  private toAccount(p: PairRun, candle: LabCandle, timeSec: number): number {
    if (p.conversion === Conversion.None) return 1;
    if (p.conversion === Conversion.OwnPrice) return 1 / candle.close;
    const rate = this.input.rates.rate(p.quote, this.input.accountCurrency, timeSec);
    if (rate === undefined || !(rate > 0)) {
      throw new Error(
        `no ${p.quote}→${this.input.accountCurrency} rate at ${iso(timeSec)} for ${p.pair.instrument}: give the candles of ${conversionInstruments([p.pair.instrument], this.input.accountCurrency).join(', ')}`,
      );
    }
    return rate;
  }

  /**
   * The equity after every candle of `timeSec`. Kept: the first mark, the lowest of each bucket of
   * `bucketSize` marks (so no drawdown hides between points) and, at the end, the last.
   */
  private markEquity(timeSec: number, isExposed: boolean): void {
    const equity = this.balance + this.unrealized;
    // A halt holds for the rest of the run: nobody resumes a backtest.
    this.book?.markEquity(timeSec * 1000, equity);
    this.equityBefore = equity;
    const curve = this.curve;
    const isFirst = curve.marks === 0;
    curve.mark(timeSec, equity, isExposed);
    if (isFirst) {
      this.keep(timeSec, equity);
      return;
    }
    if (--this.bucketLeft < 0) {
      this.flushBucket();
      this.bucketLeft = this.bucketSize - 1;
    }
    if (!this.low.isSet || equity < this.low.equity) this.low.set(timeSec, equity, curve);
  }

  private flushBucket(): void {
    const low = this.low;
    if (low.isSet) this.points.push(low.timeSec, low.equity, low.drawdown, low.drawdownPercent);
    low.isSet = false;
  }

  private keep(timeSec: number, equity: number): void {
    this.points.push(timeSec, equity, this.curve.drawdown, this.curve.drawdownPercent);
  }

  private finishEquity(): void {
    const keptSec = this.low.isSet ? this.low.timeSec : Number.NaN;
    this.flushBucket();
    const { curve } = this;
    if (curve.marks > 1 && curve.timeSec !== keptSec) this.keep(curve.timeSec, curve.equity);
  }

  private result(): BacktestResult {
    const { input, pairs } = this;
    for (const p of pairs) if (p.position.hasPending) this.skip(p, SKIP.end_of_data);
    const { entries, exits, byPair } = this.closedTrades();
    const equity: EquityPoint[] = [];
    for (let k = 0; k < this.points.length; k += POINT_FIELDS) equity.push(pointOf(this.points, k));
    const windowSeconds = input.toSec - input.fromSec;
    const perPair: BacktestMetrics['per_pair'] = {};
    for (const p of pairs) perPair[p.pair.instrument] = metricsOf(byPair[p.index]!, p.curve, input.initialBalance + p.realized, windowSeconds);
    return {
      trades: entries,
      equity,
      metrics: { overall: metricsOf(exits, this.curve, this.balance, windowSeconds), per_pair: perPair, skipped: this.skipsOf() },
      signals: this.signals,
      skipped_signals: this.skipped,
      candles: this.candles,
    };
  }

  /** The signals skipped by reason, overall and by pair. */
  private skipsOf(): NonNullable<BacktestMetrics['skipped']> {
    const overall = new Int32Array(LAB_SKIP_REASONS.length);
    const perPair: Record<string, LabSkips> = {};
    for (const p of this.pairs) {
      for (let r = 0; r < overall.length; r++) overall[r]! += p.skips[r]!;
      perPair[p.pair.instrument] = skipsRecord(p.skips);
    }
    return { overall: skipsRecord(overall), per_pair: perPair };
  }

  /** The closed trades as Trades: in entry order, in the order they closed, and by pair (in the order they closed). */
  private closedTrades(): { entries: Trade[]; exits: Trade[]; byPair: Trade[][] } {
    const entries = new Array<Trade>(this.entered);
    const exits: Trade[] = [];
    const byPair: Trade[][] = this.pairs.map(() => []);
    const c = this.closed;
    for (let k = 0; k < c.length; k += Closed.Fields) {
      const index = c[k + Closed.Pair]!;
      const pair = this.pairs[index]!.pair;
      const digits = pair.digits + 1;
      const trade: Trade = {
        instrument: pair.instrument,
        side: c[k + Closed.Side] === 1 ? 'LONG' : 'SHORT',
        signal_time: iso(c[k + Closed.SignalTime]!),
        entry_time: iso(c[k + Closed.EntryTime]!),
        entry_price: Number(c[k + Closed.Entry]!.toFixed(digits)),
        exit_time: iso(c[k + Closed.ExitTime]!),
        exit_price: Number(c[k + Closed.ExitPrice]!.toFixed(digits)),
        exit_reason: EXIT_REASONS[c[k + Closed.Reason]!]!,
        volume_lots: c[k + Closed.Lots]!,
        pnl: c[k + Closed.Pnl]!,
        r_multiple: c[k + Closed.RMultiple]!,
        duration_seconds: c[k + Closed.Duration]!,
        commission: c[k + Closed.Commission]!,
      };
      entries[c[k + Closed.Slot]!] = trade;
      exits.push(trade);
      byPair[index]!.push(trade);
    }
    return { entries, exits, byPair };
  }
}

function skipsRecord(counts: Int32Array): LabSkips {
  return Object.fromEntries(LAB_SKIP_REASONS.map((reason, r) => [reason, counts[r]!])) as LabSkips;
}

/**
 * The order the window's candles of all pairs are processed in, as pair indices: by time, pairs
 * with the same time in `ranked` order; and how many distinct times there are.
 */
function mergeOrder(pairs: readonly PairRun[], ranked: readonly PairRun[]): { order: Int32Array; times: number } {
  // Each pair's window candle times, then a merge over them alone.
  const series = pairs.map((p) => {
    const times = new Float64Array(p.windowEnd - p.windowStart + 1);
    times.set(p.candles.time.subarray(p.windowStart, p.windowEnd));
    times[times.length - 1] = Number.POSITIVE_INFINITY;
    return times;
  });
  const k = pairs.length;
  const cursors = new Int32Array(k);
  const heads = new Float64Array(k);
  let total = 0;
  for (let j = 0; j < k; j++) {
    heads[j] = series[j]![0]!;
    total += series[j]!.length - 1;
  }
  const order = new Int32Array(total);
  let times = 0;
  let previous = Number.NaN;
  const rank = Int32Array.from(ranked, (p) => p.index);
  for (let n = 0; n < total; n++) {
    let best = rank[0]!;
    for (let r = 1; r < k; r++) {
      const j = rank[r]!;
      if (heads[j]! < heads[best]!) best = j;
    }
    const bestTime = heads[best]!;
    order[n] = best;
    heads[best] = series[best]![++cursors[best]!]!;
    if (bestTime !== previous) times++;
    previous = bestTime;
  }
  return { order, times };
}

/**
 * Backtests the live strategy over the pairs' candles (README "The strategy lab"): the candles
 * before fromSec warm the indicators up; each candle of [fromSec, toSec) of every pair, merged in
 * time order (one account), goes through the live engine's path and is traded by the fill model.
 * Throws BacktestCancelledError when isCancelled answers true.
 */
export function runBacktest(input: BacktestInput): BacktestResult {
  return new Run(input).execute();
}

/** A backtest from its plain form (a worker thread's): the rates come from the candles it holds. */
export function runBacktestJob(job: BacktestJob, hooks: Pick<BacktestInput, 'onProgress' | 'isCancelled'> = {}): BacktestResult {
  const { conversion, ...input } = job;
  return runBacktest({ ...input, ...hooks, rates: ratesFromCandles([...job.pairs, ...conversion], job.accountCurrency) });
}

/**
 * Conversion rates from candles: one unit of `from` in `to` at `timeSec` is the close of the
 * latest candle opened at or before it of FROM_TO (or 1 / that of TO_FROM), else through USD or
 * the account currency.
 * Queries moving forward in time cost O(1) each.
 */
export function ratesFromCandles(pairs: readonly BacktestPair[], accountCurrency: string): ConversionRates {
  const series = new Map<string, Series>();
  for (const pair of pairs) series.set(pair.instrument, new Series(pair.candles));
  const hubs = [...new Set(['USD', accountCurrency])];
  const known = (from: string, to: string, timeSec: number): number | undefined => {
    if (from === to) return 1;
    const direct = series.get(`${from}_${to}`)?.closeAt(timeSec);
    if (direct !== undefined) return direct;
    const inverse = series.get(`${to}_${from}`)?.closeAt(timeSec);
    return inverse === undefined ? undefined : 1 / inverse;
  };
  const rate = (from: string, to: string, timeSec: number): number | undefined => {
    const direct = known(from, to, timeSec);
    if (direct !== undefined) return direct;
    for (const hub of hubs) {
      if (hub === from || hub === to) continue;
      const first = known(from, hub, timeSec);
      const second = first === undefined ? undefined : known(hub, to, timeSec);
      if (first !== undefined && second !== undefined) return first * second;
    }
    return undefined;
  };
  return { rate };
}

class Series {
  private cursor = 0;

  constructor(private readonly candles: CandleColumns) {}

  /** The close of the latest candle with time ≤ timeSec, or undefined before the first. */
  closeAt(timeSec: number): number | undefined {
    const { time, close } = this.candles;
    const n = time.length;
    if (n === 0 || time[0]! > timeSec) return undefined;
    let i = this.cursor;
    if (time[i]! > timeSec) {
      i = firstAtOrAfter(time, timeSec + 1) - 1;
    } else {
      // Forward a few candles at most, else search.
      let steps = 0;
      while (i + 1 < n && time[i + 1]! <= timeSec && steps++ < 8) i++;
      if (i + 1 < n && time[i + 1]! <= timeSec) i = firstAtOrAfter(time, timeSec + 1) - 1;
    }
    this.cursor = i;
    return close[i]!;
  }
}

/** Currencies in the order the market quotes them: the earlier one is the base (EUR_USD, USD_JPY, XAU_USD). */
const BASE_PRIORITY = ['XAU', 'XAG', 'EUR', 'GBP', 'AUD', 'NZD', 'USD', 'CAD', 'CHF', 'JPY'];

/**
 * The instruments, besides `instruments`, whose candles the conversion of their P/L into
 * `accountCurrency` needs: for a cross, its quote currency against the account currency, named
 * as the market quotes it (EUR_GBP → GBP_USD, AUD_JPY → USD_JPY for USD).
 */
export function conversionInstruments(instruments: readonly string[], accountCurrency: string): string[] {
  const needed = new Set<string>();
  for (const instrument of instruments) {
    const [base, quote] = instrument.split('_') as [string, string];
    if (quote === accountCurrency || base === accountCurrency) continue;
    const rank = (c: string) => {
      const i = BASE_PRIORITY.indexOf(c);
      return i < 0 ? BASE_PRIORITY.length : i;
    };
    needed.add(rank(quote) <= rank(accountCurrency) ? `${quote}_${accountCurrency}` : `${accountCurrency}_${quote}`);
  }
  return [...needed].filter((name) => !instruments.includes(name));
}
