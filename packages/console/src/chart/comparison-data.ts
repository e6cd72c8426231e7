import type { EquityPoint, Performance } from '@fxdesk/schemas';
import type { LineData, Time } from 'lightweight-charts';
import { toTime } from './chart-data.js';
import { equityLines } from './equity-data.js';

/**
 * The journal's equity and a backtest's of the same period as two lines of P/L since the
 * period's start, so two different starting balances still start together at 0. Pure.
 */

export type PnlLine = LineData<Time>[];

const cents = (value: number) => Math.round(value * 100) / 100;

/**
 * The journal's realized P/L: 0 at `fromIso`, then after each trade's exit (two exits in one
 * second: the later one), standing until the read's `to` (now).
 */
export function journalPnlLine(performance: Pick<Performance, 'equity' | 'initial_equity' | 'to'>, fromIso: string): PnlLine {
  const byTime = new Map<number, number>([[toTime(fromIso), 0]]);
  for (const point of performance.equity) byTime.set(toTime(point.time), cents(point.equity - performance.initial_equity));
  const line = [...byTime.entries()].sort(([a], [b]) => a - b).map(([time, value]) => ({ time: time as Time, value }));
  const last = line.at(-1) as LineData<Time>;
  const end = toTime(performance.to);
  return end > (last.time as number) ? [...line, { time: end, value: last.value }] : line;
}

/** The backtest's P/L, marked to market at its candles, from its initial balance. */
export function backtestPnlLine(points: readonly EquityPoint[], initialBalance: number): PnlLine {
  return equityLines(points).equity.map((p) => ({ time: p.time, value: cents(p.value - initialBalance) }));
}

/** The line's value at `time`: its last point at or before it (a step), 0 before its first. */
export function valueAt(line: PnlLine, time: Time): number {
  let value = 0;
  for (const point of line) {
    if ((point.time as number) > (time as number)) break;
    value = point.value;
  }
  return value;
}

export interface ComparisonSummary {
  journalPoints: number;
  backtestPoints: number;
  /** The journal's P/L at its last point, and the backtest's at its end. */
  journalPnl: number;
  backtestPnl: number | null;
  /** Journal less backtest at the backtest's end: above 0, the journal made more. Null without a backtest. */
  gap: number | null;
}

export function comparisonSummary(journal: PnlLine, backtest: PnlLine | null): ComparisonSummary {
  const end = backtest?.at(-1);
  return {
    journalPoints: journal.length,
    backtestPoints: backtest?.length ?? 0,
    journalPnl: journal.at(-1)?.value ?? 0,
    backtestPnl: end?.value ?? null,
    gap: end ? cents(valueAt(journal, end.time) - end.value) : null,
  };
}
