import type { Bar } from '@fxdesk/broker';
import { decimalFromNumber } from '@fxdesk/primitives';
import { TIMEFRAME_SECONDS, type IntervalCandle, type Timeframe } from '@fxdesk/schemas';

/** `spread_source` of a candle whose spread the provider's bar carried (points × point size). */
export const BAR_SPREAD_SOURCE = 'provider_bar';

export interface CandleContext {
  timeframe: Timeframe;
  count: number;
  nowMs: number;
  provider: string;
  /** The instrument as the provider names it. */
  sourceInstrument: string;
  digits: number;
}

/**
 * Spec 002 candles from provider bars: only closed bars (the provider's `closed` flag, and the
 * interval must have ended by `nowMs`, so a late flag never leaks a forming bar), the newest
 * `count` of them, oldest first, each stamped with the END of its interval: the provider gives
 * the open, and the end is the open plus the timeframe's length.
 */
export function toIntervalCandles(bars: readonly Bar[], ctx: CandleContext): IntervalCandle[] {
  const lengthMs = TIMEFRAME_SECONDS[ctx.timeframe] * 1000;
  const closed = bars.filter((bar) => bar.closed && bar.time * 1000 + lengthMs <= ctx.nowMs);
  return closed.slice(Math.max(0, closed.length - ctx.count)).map((bar) => ({
    ts: new Date(bar.time * 1000 + lengthMs).toISOString(),
    open: bar.open,
    high: bar.high,
    low: bar.low,
    close: bar.close,
    volume: bar.tickVolume,
    provider: ctx.provider,
    source_instrument: ctx.sourceInstrument,
    spread: bar.spread === null ? null : Number(decimalFromNumber(bar.spread * 10 ** -ctx.digits, ctx.digits)),
    spread_source: bar.spread === null ? null : BAR_SPREAD_SOURCE,
  }));
}
