import type { Time } from 'lightweight-charts';
import { describe, expect, it } from 'vitest';
import { toTime } from '../src/chart/chart-data.js';
import { backtestPnlLine, comparisonSummary, journalPnlLine, valueAt } from '../src/chart/comparison-data.js';
import { equityPoint } from './fixtures.js';

const FROM = '2026-01-05T00:00:00.000Z';
const at = (hour: number) => `2026-01-05T${String(hour).padStart(2, '0')}:00:00.000Z`;

describe('the journal’s curve', () => {
  it('starts at 0 at the period’s start, steps to the P/L after each exit and stands there until now', () => {
    const line = journalPnlLine(
      {
        initial_equity: 100_000,
        to: at(12),
        equity: [
          { time: at(3), equity: 100_040 },
          { time: at(7), equity: 99_990.1 },
        ],
      },
      FROM,
    );
    expect(line).toEqual([
      { time: toTime(FROM), value: 0 },
      { time: toTime(at(3)), value: 40 },
      { time: toTime(at(7)), value: -9.9 },
      { time: toTime(at(12)), value: -9.9 },
    ]);
  });

  it('keeps the later of two exits in the same second', () => {
    const line = journalPnlLine(
      {
        initial_equity: 100_000,
        to: '2026-01-05T03:00:00.900Z',
        equity: [
          { time: '2026-01-05T03:00:00.100Z', equity: 100_010 },
          { time: '2026-01-05T03:00:00.900Z', equity: 100_030 },
        ],
      },
      FROM,
    );
    expect(line.map((p) => p.value)).toEqual([0, 30]);
  });
});

describe('the backtest’s curve', () => {
  it('is its marked equity less its initial balance, one point a time', () => {
    expect(backtestPnlLine([equityPoint(at(1), 50_000), equityPoint(at(2), 50_012.345), equityPoint(at(2), 49_990)], 50_000)).toEqual([
      { time: toTime(at(1)), value: 0 },
      { time: toTime(at(2)), value: -10 },
    ]);
  });
});

describe('the two side by side', () => {
  const journal = journalPnlLine(
    {
      initial_equity: 100_000,
      to: at(9),
      equity: [
        { time: at(3), equity: 100_040 },
        { time: at(9), equity: 100_100 },
      ],
    },
    FROM,
  );

  it('reads the journal as steps between its exits', () => {
    expect(valueAt(journal, toTime(at(5)) as Time)).toBe(40);
    expect(valueAt(journal, (toTime(FROM) - 60) as Time)).toBe(0);
  });

  it('says how far the journal is from the backtest at the backtest’s end', () => {
    const backtest = backtestPnlLine([equityPoint(at(0), 100_000), equityPoint(at(6), 100_025)], 100_000);
    expect(comparisonSummary(journal, backtest)).toEqual({ journalPoints: 3, backtestPoints: 2, journalPnl: 100, backtestPnl: 25, gap: 15 });
  });

  it('has no gap before a backtest is drawn', () => {
    expect(comparisonSummary(journal, null)).toEqual({ journalPoints: 3, backtestPoints: 0, journalPnl: 100, backtestPnl: null, gap: null });
  });
});
