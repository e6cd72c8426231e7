import type { ChartCandle, LabTrade, StrategySignal, Timeframe } from '@fxdesk/schemas';
import type { CandlestickData, HistogramData, LineData, SeriesMarker, Time, UTCTimestamp } from 'lightweight-charts';
import { candleOpen, shiftTradingMs, TIMEFRAME_SECONDS, tradingMsBetween } from '../market-time.js';

/**
 * The pair chart's data, mapped from the strategy's chart candles and signals: pure functions,
 * so what the chart draws is tested without a canvas.
 */

export const COLORS = {
  up: '#26a69a',
  down: '#ef5350',
  upVolume: 'rgba(38, 166, 154, 0.35)',
  downVolume: 'rgba(239, 83, 80, 0.35)',
  bullishZone: 'rgba(38, 166, 154, 0.16)',
  bearishZone: 'rgba(239, 83, 80, 0.16)',
  poc: '#f6c343',
  valueArea: '#8d96a8',
  entry: '#4f9cf9',
  stop: '#ef5350',
  target: '#26a69a',
  k: '#4f9cf9',
  d: '#f6a343',
  win: '#26a69a',
  loss: '#ef5350',
  /** The column behind the picked signal's bar (opaque, under the candles). */
  highlight: '#1f2b3f',
} as const;

export function toTime(iso: string): UTCTimestamp {
  return Math.floor(Date.parse(iso) / 1000) as UTCTimestamp;
}

export function candleBars(candles: readonly ChartCandle[]): CandlestickData<Time>[] {
  return candles.map((c) => ({ time: toTime(c.time), open: c.open, high: c.high, low: c.low, close: c.close }));
}

export function volumeBars(candles: readonly ChartCandle[]): HistogramData<Time>[] {
  return candles.map((c) => ({ time: toTime(c.time), value: c.volume, color: c.close >= c.open ? COLORS.upVolume : COLORS.downVolume }));
}

/**
 * The Supertrend as one line coloured by its direction. lightweight-charts strokes the segment
 * from a point to the next in the first point's colour (and joins points across whitespace), so
 * the point before a flip is transparent: a flip starts the line anew on the other side of price
 * instead of drawing a vertical jump.
 */
export function supertrendLine(candles: readonly ChartCandle[]): LineData<Time>[] {
  const points = candles.flatMap((c) => (c.supertrend ? [{ time: toTime(c.time), ...c.supertrend }] : []));
  return points.map((p, i) => {
    const next = points[i + 1];
    const color = next && next.direction !== p.direction ? 'transparent' : p.direction === 1 ? COLORS.up : COLORS.down;
    return { time: p.time, value: p.value, color };
  });
}

/** %K and %D of the Stochastic RSI, from the first candle that has them. */
export function stochRsiLines(candles: readonly ChartCandle[]): { k: LineData<Time>[]; d: LineData<Time>[] } {
  const k: LineData<Time>[] = [];
  const d: LineData<Time>[] = [];
  for (const c of candles) {
    if (!c.stochrsi) continue;
    const time = toTime(c.time);
    k.push({ time, value: c.stochrsi.k });
    d.push({ time, value: c.stochrsi.d });
  }
  return { k, d };
}

/** An open fair value gap, from the candle that left it until it was filled or replaced (`to` null: still open). */
export interface Zone {
  type: 'bullish' | 'bearish';
  low: number;
  high: number;
  from: UTCTimestamp;
  to: UTCTimestamp | null;
}

/**
 * The fair value gaps as zones. Each candle carries the latest open gap after it; a run of
 * candles carrying the same gap is one zone, which ends where the gap changes or closes.
 */
export function fvgZones(candles: readonly ChartCandle[]): Zone[] {
  const zones: Zone[] = [];
  let open: Zone | null = null;
  for (const c of candles) {
    const gap = c.fvg && c.fvg.type !== 'none' && c.fvg.zone ? { type: c.fvg.type, low: c.fvg.zone[0], high: c.fvg.zone[1] } : null;
    const time = toTime(c.time);
    if (open && gap && gap.type === open.type && gap.low === open.low && gap.high === open.high) continue;
    if (open) {
      open.to = time;
      zones.push(open);
      open = null;
    }
    if (gap) open = { ...gap, from: time, to: null };
  }
  if (open) zones.push(open);
  return zones;
}

/** The volume profile after the newest candle that has one. */
export function latestProfile(candles: readonly ChartCandle[]): { poc: number; vah: number; val: number } | null {
  for (let i = candles.length - 1; i >= 0; i--) {
    const profile = candles[i]?.volume_profile;
    if (profile) return profile;
  }
  return null;
}

/** The chart bar (open time) a signal belongs to on a chart of `timeframe`: the bar holding the candle it was decided on. */
export function signalBarTime(signal: Pick<StrategySignal, 'candle_time'>, timeframe: Timeframe): UTCTimestamp {
  return candleOpen(toTime(signal.candle_time), timeframe) as UTCTimestamp;
}

/** Signals whose bar is on the chart (between its first bar and the end of its newest), oldest first. */
export function signalsOnChart<S extends Pick<StrategySignal, 'candle_time' | 'generated_at'>>(
  signals: readonly S[],
  candles: readonly ChartCandle[],
  timeframe: Timeframe,
): S[] {
  const first = candles[0];
  const last = candles.at(-1);
  if (!first || !last) return [];
  const start = toTime(first.time);
  const end = toTime(last.time) + TIMEFRAME_SECONDS[timeframe];
  return signals
    .filter((s) => signalBarTime(s, timeframe) >= start && signalBarTime(s, timeframe) < end)
    .sort((a, b) => a.generated_at.localeCompare(b.generated_at));
}

/** The signal the chart picks out: the one asked for when it is on the chart, else the newest on it. */
export function pickedSignal<S extends Pick<StrategySignal, 'signal_id'>>(onChart: readonly S[], selectedId: string | null): S | null {
  return onChart.find((s) => s.signal_id === selectedId) ?? onChart.at(-1) ?? null;
}

/** One marker per signal: an arrow under a LONG's bar, over a SHORT's, the picked one labelled. */
export function signalMarkers(signals: readonly StrategySignal[], timeframe: Timeframe, selectedId: string | null): SeriesMarker<Time>[] {
  return signals
    .map((s) => {
      const long = s.type === 'LONG';
      return {
        time: signalBarTime(s, timeframe),
        position: long ? ('belowBar' as const) : ('aboveBar' as const),
        shape: long ? ('arrowUp' as const) : ('arrowDown' as const),
        color: long ? COLORS.up : COLORS.down,
        text: s.signal_id === selectedId ? `${s.type} ${s.confluence_score}/4` : s.type,
        size: s.signal_id === selectedId ? 2 : 1,
      };
    })
    .sort((a, b) => a.time - b.time);
}

/** A signal's entry, stop and target as horizontal segments from its bar. */
export interface SignalLevels {
  signalId: string;
  type: 'LONG' | 'SHORT';
  from: UTCTimestamp;
  /** null: to the chart's right edge (the signal is recent). */
  to: UTCTimestamp | null;
  entry: number;
  stop: number;
  target: number;
  selected: boolean;
}

/** How many bars a signal's levels are drawn over before they stop (a recent signal's run to the edge). */
export const LEVEL_BARS = 20;

export function signalLevels(
  signals: readonly StrategySignal[],
  candles: readonly ChartCandle[],
  timeframe: Timeframe,
  selectedId: string | null,
): SignalLevels[] {
  const last = candles.at(-1);
  if (!last) return [];
  const lastTime = toTime(last.time);
  const length = TIMEFRAME_SECONDS[timeframe];
  return signals.map((s) => {
    const from = signalBarTime(s, timeframe);
    const end = from + LEVEL_BARS * length;
    return {
      signalId: s.signal_id,
      type: s.type,
      from,
      to: end > lastTime ? null : (end as UTCTimestamp),
      entry: s.entry_price,
      stop: s.stop_loss,
      target: s.take_profit,
      selected: s.signal_id === selectedId,
    };
  });
}

/** A backtest's trade as the chart draws it: from its entry to its exit. */
export type ChartTrade = Pick<LabTrade, 'side' | 'entry_time' | 'entry_price' | 'exit_time' | 'exit_price' | 'exit_reason' | 'pnl'>;

/** A trade's name on the chart (a pair holds one position at a time, so its entry time names it). */
export function tradeKey(trade: Pick<LabTrade, 'entry_time'>): string {
  return trade.entry_time;
}

/** Candles a backtest's chart reads around a short trade: under the strategy's default CHART_CANDLES (500). */
export const TRADE_WINDOW_CANDLES = 400;
/** The most candles GET /backtests/{id}/candles may answer (CHART_CANDLES' own bound). */
const MAX_CHART_CANDLES = 5000;

/**
 * What to read to chart a trade (GET /backtests/{id}/candles' from, to and limit): the trade with
 * up to 150 bars either side (of trading time: a weekend holds none), fewer for a long trade so a
 * short one's window stays within TRADE_WINDOW_CANDLES; a trade longer than that asks for as many
 * candles as it holds, which a desk charting fewer (CHART_CANDLES) refuses.
 */
export function tradeWindow(trade: Pick<LabTrade, 'entry_time' | 'exit_time'>, timeframe: Timeframe): { from: string; to: string; limit: number } {
  const barMs = TIMEFRAME_SECONDS[timeframe] * 1000;
  const entryMs = Date.parse(trade.entry_time);
  const exitMs = Date.parse(trade.exit_time);
  const heldBars = Math.round(tradingMsBetween(entryMs, exitMs) / barMs) + 1;
  const marginBars = Math.min(150, Math.max(10, Math.floor((TRADE_WINDOW_CANDLES - heldBars) / 2)));
  return {
    from: new Date(shiftTradingMs(entryMs, -marginBars * barMs)).toISOString(),
    to: new Date(shiftTradingMs(exitMs, (marginBars + 1) * barMs)).toISOString(),
    limit: Math.min(MAX_CHART_CANDLES, Math.max(TRADE_WINDOW_CANDLES, heldBars + 2 * marginBars + 1)),
  };
}

/** Trades whose entry and exit are both bars of the chart. */
export function tradesOnChart<T extends ChartTrade>(trades: readonly T[], candles: readonly ChartCandle[]): T[] {
  const times = new Set(candles.map((c) => toTime(c.time)));
  return trades.filter((t) => times.has(toTime(t.entry_time)) && times.has(toTime(t.exit_time)));
}

/**
 * Two markers per trade, at their prices: the entry as an arrow (up for a LONG, under the price;
 * down for a SHORT, over it), the exit as a dot green for a gain and red for a loss; the picked
 * trade's are labelled.
 */
export function tradeMarkers(trades: readonly ChartTrade[], selectedKey: string | null): SeriesMarker<Time>[] {
  return trades.flatMap((t) => {
    const long = t.side === 'LONG';
    const picked = tradeKey(t) === selectedKey;
    const entry: SeriesMarker<Time> = {
      time: toTime(t.entry_time),
      position: long ? 'atPriceBottom' : 'atPriceTop',
      price: t.entry_price,
      shape: long ? 'arrowUp' : 'arrowDown',
      color: COLORS.entry,
      size: picked ? 2 : 1,
      ...(picked ? { text: t.side } : {}),
    };
    const exit: SeriesMarker<Time> = {
      time: toTime(t.exit_time),
      position: 'atPriceMiddle',
      price: t.exit_price,
      shape: 'circle',
      color: t.pnl > 0 ? COLORS.win : COLORS.loss,
      size: picked ? 2 : 1,
      ...(picked ? { text: t.exit_reason.replace(/_/g, ' ') } : {}),
    };
    return [entry, exit];
  });
}

/** A trade's line from its entry to its exit. */
export interface TradeLine {
  key: string;
  from: UTCTimestamp;
  entry: number;
  to: UTCTimestamp;
  exit: number;
  isWin: boolean;
  selected: boolean;
}

export function tradeLines(trades: readonly ChartTrade[], selectedKey: string | null): TradeLine[] {
  return trades.map((t) => ({
    key: tradeKey(t),
    from: toTime(t.entry_time),
    entry: t.entry_price,
    to: toTime(t.exit_time),
    exit: t.exit_price,
    isWin: t.pnl > 0,
    selected: tradeKey(t) === selectedKey,
  }));
}

/**
 * The candle list after a closed candle arrives live: a candle already there (same open time)
 * is replaced, a newer one appended, and the list keeps at most `max` candles.
 */
export function withClosedCandle(candles: readonly ChartCandle[], candle: ChartCandle, max: number): ChartCandle[] {
  const last = candles.at(-1);
  if (last && last.time === candle.time) return [...candles.slice(0, -1), candle];
  if (last && Date.parse(candle.time) < Date.parse(last.time)) {
    const at = candles.findIndex((c) => c.time === candle.time);
    return at < 0 ? [...candles] : candles.map((c, i) => (i === at ? candle : c));
  }
  const next = [...candles, candle];
  return next.length > max ? next.slice(next.length - max) : next;
}

/**
 * The bar forming after the newest closed candle, from a live price at `atMs`: it opens at the
 * last close and stretches with each price. Null when the price belongs to no later bar.
 */
export function formingBar(
  closed: readonly ChartCandle[],
  previous: CandlestickData<Time> | null,
  price: number,
  atMs: number,
  timeframe: Timeframe,
): CandlestickData<Time> | null {
  const last = closed.at(-1);
  if (!last) return null;
  const time = candleOpen(Math.floor(atMs / 1000), timeframe) as UTCTimestamp;
  if (time <= toTime(last.time)) return null;
  if (previous && previous.time === time) {
    return { time, open: previous.open, high: Math.max(previous.high, price), low: Math.min(previous.low, price), close: price };
  }
  return { time, open: last.close, high: Math.max(last.close, price), low: Math.min(last.close, price), close: price };
}

/** What the chart draws, in words: the legend under it (and what a screen reader hears). */
export interface ChartSummary {
  candles: number;
  supertrend: { direction: 1 | -1; value: number } | null;
  zones: number;
  openZone: Zone | null;
  profile: { poc: number; vah: number; val: number } | null;
  stochrsi: { k: number; d: number } | null;
  signals: number;
  picked: StrategySignal | null;
}

export function chartSummary(
  candles: readonly ChartCandle[],
  signals: readonly StrategySignal[],
  timeframe: Timeframe,
  selectedId: string | null,
): ChartSummary {
  const zones = fvgZones(candles);
  const last = candles.at(-1);
  const onChart = signalsOnChart(signals, candles, timeframe);
  return {
    candles: candles.length,
    supertrend: last?.supertrend ?? null,
    zones: zones.length,
    openZone: zones.find((z) => z.to === null) ?? null,
    profile: latestProfile(candles),
    stochrsi: last?.stochrsi ? { k: last.stochrsi.k, d: last.stochrsi.d } : null,
    signals: onChart.length,
    picked: pickedSignal(onChart, selectedId),
  };
}
