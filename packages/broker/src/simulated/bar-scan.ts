import type { Bar } from '../types.js';
import { MINUTE_MS, nextWeeklyOpen } from './market-hours.js';
import { BOUND_SPANS_MS, type BidBounds, type MinuteBids, type SymbolModel } from './price-model.js';

/**
 * The closed bar of [startMs, endMs) (whole minutes): exactly what aggregating every tick of the
 * period gives, without pricing every tick. Tick counts and spreads come from each minute's
 * frame alone; the open and close from the first and last busy minute, priced whole; the high
 * and the low from the few other minutes whose price bounds can still beat the best bids found.
 */
export function scanClosedBar(model: SymbolModel, startMs: number, endMs: number): Bar | null {
  if (endMs - startMs <= PRICE_WHOLE_MS) return priceWholeBar(model, startMs, endMs);
  const busyMinutes: number[] = [];
  let ticks = 0;
  let spread = Number.POSITIVE_INFINITY;
  const endMinute = endMs / MINUTE_MS;
  let minute = startMs / MINUTE_MS;
  while (minute < endMinute) {
    const frame = model.minuteFrame(minute);
    if (!frame.isOpen) {
      minute = Math.max(minute + 1, nextWeeklyOpen(minute * MINUTE_MS) / MINUTE_MS);
      continue;
    }
    if (frame.tickCount > 0) {
      busyMinutes.push(minute);
      ticks += frame.tickCount;
      if (frame.spread < spread) spread = frame.spread;
    }
    minute++;
  }
  if (ticks === 0) return null;
  const scale = 10 ** model.spec.digits;
  const search = new ExtremeSearch(model, busyMinutes);
  return {
    time: startMs / 1000,
    open: search.open / scale,
    high: search.high / scale,
    low: search.low / scale,
    close: search.close / scale,
    tickVolume: ticks,
    spread,
    closed: true,
  };
}

/**
 * Bars this short are priced tick by tick in one pass: bounds rarely spare one of their few
 * minutes (most minutes of an M5 bar hold its high or its low), and reloading a minute to
 * price it after bounding it costs more than pricing it at once.
 */
const PRICE_WHOLE_MS = 5 * MINUTE_MS;

/** scanClosedBar for a short period: every minute loaded once and every tick priced. */
function priceWholeBar(model: SymbolModel, startMs: number, endMs: number): Bar | null {
  const bids: MinuteBids = { first: 0, last: 0, low: 0, high: 0 };
  let ticks = 0;
  let spread = Number.POSITIVE_INFINITY;
  let open = 0;
  let close = 0;
  let high = Number.NEGATIVE_INFINITY;
  let low = Number.POSITIVE_INFINITY;
  const endMinute = endMs / MINUTE_MS;
  for (let minute = startMs / MINUTE_MS; minute < endMinute; minute++) {
    const frame = model.minuteFrame(minute);
    if (!frame.isOpen || !model.scanMinute(bids)) continue;
    if (ticks === 0) open = bids.first;
    ticks += frame.tickCount;
    if (frame.spread < spread) spread = frame.spread;
    close = bids.last;
    if (bids.high > high) high = bids.high;
    if (bids.low < low) low = bids.low;
  }
  if (ticks === 0) return null;
  const scale = 10 ** model.spec.digits;
  return { time: startMs / 1000, open: open / scale, high: high / scale, low: low / scale, close: close / scale, tickVolume: ticks, spread, closed: true };
}

/**
 * The open, close, highest and lowest bid, in points, of the ticks in `minutes` (ascending, each
 * with ticks). Every minute priced is priced whole, once, and counts for both extremes; the
 * others are visited most promising first (hours, then quarter hours, then minutes) and skipped
 * once their bound cannot beat the best bid found. The bounds are rigorous, so the answer is exact.
 */
class ExtremeSearch {
  readonly open: number;
  readonly close: number;
  high = Number.NEGATIVE_INFINITY;
  low = Number.POSITIVE_INFINITY;
  private readonly isPriced: Uint8Array;
  private readonly minuteBounds: (BidBounds | undefined)[];
  /** Per level of BOUND_SPANS_MS: the bounds of each period asked for, by period index. */
  private readonly periodBounds = BOUND_SPANS_MS.map(() => new Map<number, BidBounds>());
  private readonly bids: MinuteBids = { first: 0, last: 0, low: 0, high: 0 };

  constructor(
    private readonly model: SymbolModel,
    private readonly minutes: readonly number[],
  ) {
    this.isPriced = new Uint8Array(minutes.length);
    this.minuteBounds = new Array<BidBounds | undefined>(minutes.length);
    this.price(minutes.length - 1);
    this.close = this.bids.last;
    this.price(0);
    this.open = this.bids.first;
    this.searchPeriods(1, 0, 0, minutes.length);
    this.searchPeriods(-1, 0, 0, minutes.length);
  }

  /** Prices every tick of minute `index`; its bids stay in `this.bids`. */
  private price(index: number): void {
    if (this.isPriced[index] === 1) return;
    this.model.minuteFrame(this.minutes[index]!);
    this.model.scanMinute(this.bids);
    if (this.bids.high > this.high) this.high = this.bids.high;
    if (this.bids.low < this.low) this.low = this.bids.low;
    this.isPriced[index] = 1;
  }

  /** The best bid found so far in `direction` × bid terms, where higher is always better. */
  private best(direction: 1 | -1): number {
    return direction > 0 ? this.high : -this.low;
  }

  private searchPeriods(direction: 1 | -1, level: number, from: number, to: number): void {
    if (level === BOUND_SPANS_MS.length) return this.searchMinutes(direction, from, to);
    const spanMs = BOUND_SPANS_MS[level]!;
    const spanMinutes = spanMs / MINUTE_MS;
    const periods: { from: number; to: number; bound: number }[] = [];
    // `minutes` is ascending, so each period's minutes are one run of it.
    for (let i = from; i < to;) {
      const period = Math.floor(this.minutes[i]! / spanMinutes);
      let j = i + 1;
      while (j < to && Math.floor(this.minutes[j]! / spanMinutes) === period) j++;
      periods.push({ from: i, to: j, bound: Number.POSITIVE_INFINITY });
      i = j;
    }
    // One period alone is searched whatever its bound: no need to compute it.
    if (periods.length > 1) {
      for (const p of periods) {
        const period = Math.floor(this.minutes[p.from]! / spanMinutes);
        let bounds = this.periodBounds[level]!.get(period);
        if (!bounds) {
          bounds = this.model.periodBidBounds(period * spanMs, spanMs);
          this.periodBounds[level]!.set(period, bounds);
        }
        p.bound = direction > 0 ? bounds.high : -bounds.low;
      }
      periods.sort((a, b) => b.bound - a.bound);
    }
    for (const period of periods) {
      if (period.bound <= this.best(direction)) return;
      this.searchPeriods(direction, level + 1, period.from, period.to);
    }
  }

  private searchMinutes(direction: 1 | -1, from: number, to: number): void {
    const candidates: { index: number; bound: number }[] = [];
    for (let index = from; index < to; index++) {
      if (this.isPriced[index] === 1) continue;
      let bounds = this.minuteBounds[index];
      if (!bounds) {
        this.model.minuteFrame(this.minutes[index]!);
        bounds = this.model.minuteBidBounds();
        this.minuteBounds[index] = bounds;
      }
      candidates.push({ index, bound: direction > 0 ? bounds.high : -bounds.low });
    }
    candidates.sort((a, b) => b.bound - a.bound);
    for (const { index, bound } of candidates) {
      if (bound <= this.best(direction)) return;
      this.price(index);
    }
  }
}
