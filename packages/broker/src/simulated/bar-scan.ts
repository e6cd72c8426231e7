import type { Bar } from '../types.js';
import { MINUTE_MS, nextWeeklyOpen } from './market-hours.js';
import { BOUND_SPANS_MS, type BidBounds, type SymbolModel } from './price-model.js';

/**
 * The closed bar of [startMs, endMs) (whole minutes): exactly what aggregating every tick of the
 * period gives, without pricing every tick. Tick counts and spreads come from each minute's
 * frame alone; the open and close from the first and last busy minute; the high and the low
 * from the few minutes whose price bounds can still beat the best tick found so far.
 */
export function scanClosedBar(model: SymbolModel, startMs: number, endMs: number): Bar | null {
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
  return {
    time: startMs / 1000,
    open: edgeBid(model, busyMinutes[0]!, 'first') / scale,
    high: extremeBid(model, busyMinutes, 1) / scale,
    low: extremeBid(model, busyMinutes, -1) / scale,
    close: edgeBid(model, busyMinutes.at(-1)!, 'last') / scale,
    tickVolume: ticks,
    spread,
    closed: true,
  };
}

/** The bid of the first or last tick of a minute that has ticks. */
function edgeBid(model: SymbolModel, minute: number, which: 'first' | 'last'): number {
  const frame = model.minuteFrame(minute);
  let bid = Number.NaN;
  for (let slot = frame.firstSlot; slot < frame.endSlot; slot++) {
    if (!model.evaluateSlot(slot)) continue;
    bid = model.bidPoints;
    if (which === 'first') break;
  }
  return bid;
}

/**
 * The highest (direction 1) or lowest (direction −1) bid, in points, of the ticks in `minutes`
 * (ascending). Hours, then quarter hours, then minutes are visited most promising first and
 * skipped once their bound cannot beat the best bid found: the bounds are rigorous, so the
 * answer is exact.
 */
function extremeBid(model: SymbolModel, minutes: number[], direction: 1 | -1): number {
  // Work in "direction × bid", so that higher is always better.
  let best = Number.NEGATIVE_INFINITY;
  const score = (bounds: BidBounds) => (direction > 0 ? bounds.high : -bounds.low);

  const searchMinutes = (from: number, to: number) => {
    const candidates = minutes
      .slice(from, to)
      .map((minute) => {
        model.minuteFrame(minute);
        return { minute, bound: score(model.minuteBidBounds()) };
      })
      .sort((a, b) => b.bound - a.bound);
    for (const { minute, bound } of candidates) {
      if (bound <= best) return;
      const frame = model.minuteFrame(minute);
      for (let slot = frame.firstSlot; slot < frame.endSlot; slot++) {
        if (model.evaluateSlot(slot) && direction * model.bidPoints > best) best = direction * model.bidPoints;
      }
    }
  };

  const searchPeriods = (level: number, from: number, to: number): void => {
    if (level === BOUND_SPANS_MS.length) return searchMinutes(from, to);
    const spanMinutes = BOUND_SPANS_MS[level]! / MINUTE_MS;
    const periods: { from: number; to: number; bound: number }[] = [];
    // `minutes` is ascending, so each period's minutes are one run of it.
    for (let i = from; i < to;) {
      const period = Math.floor(minutes[i]! / spanMinutes);
      let j = i + 1;
      while (j < to && Math.floor(minutes[j]! / spanMinutes) === period) j++;
      periods.push({ from: i, to: j, bound: score(model.periodBidBounds(period * spanMinutes * MINUTE_MS, spanMinutes * MINUTE_MS)) });
      i = j;
    }
    periods.sort((a, b) => b.bound - a.bound);
    for (const period of periods) {
      if (period.bound <= best) return;
      searchPeriods(level + 1, period.from, period.to);
    }
  };

  searchPeriods(0, 0, minutes.length);
  return direction * best;
}
