import type { EquityPoint } from '@fxdesk/schemas';
import type { LineData, Time } from 'lightweight-charts';
import { formatMoney } from '../format.js';
import { toTime } from './chart-data.js';

/** The equity chart's amounts and percentages, on its axes and labels: two decimals, thousands grouped (`100,250.00`). */
export const EQUITY_PRICE_FORMAT = { type: 'custom', minMove: 0.01, formatter: (value: number) => formatMoney(value) } as const;

/**
 * A backtest's equity curve and its drawdown below the running high, as the equity chart's two
 * series: one point per time (the service keeps the first, the last and each bucket's lowest
 * point, which may share a time), oldest first; the drawdown as a negative percentage, so it
 * hangs below zero.
 */
export function equityLines(points: readonly EquityPoint[]): { equity: LineData<Time>[]; drawdown: LineData<Time>[] } {
  const byTime = new Map<number, EquityPoint>();
  for (const p of points) {
    const time = toTime(p.time);
    const seen = byTime.get(time);
    if (!seen || p.equity < seen.equity) byTime.set(time, p);
  }
  const sorted = [...byTime.entries()].sort(([a], [b]) => a - b);
  return {
    equity: sorted.map(([time, p]) => ({ time: time as Time, value: p.equity })),
    drawdown: sorted.map(([time, p]) => ({ time: time as Time, value: p.drawdown_percent === 0 ? 0 : -p.drawdown_percent })),
  };
}

/** What the equity chart draws, in words (its caption). */
export interface EquitySummary {
  points: number;
  first: number | null;
  last: number | null;
  /** The deepest drawdown on the curve, in percent of the high before it. */
  deepestPercent: number;
}

export function equitySummary(points: readonly EquityPoint[]): EquitySummary {
  return {
    points: points.length,
    first: points[0]?.equity ?? null,
    last: points.at(-1)?.equity ?? null,
    deepestPercent: points.reduce((deepest, p) => Math.max(deepest, p.drawdown_percent), 0),
  };
}
