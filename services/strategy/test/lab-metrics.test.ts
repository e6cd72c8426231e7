import { describe, expect, it } from 'vitest';
import { EquityCurve, cagrOf, dailyRatios, metricsOf, tradeStats } from '../src/lab/metrics.js';
import type { Trade } from '../src/lab/types.js';

const DAY = 86_400;

function trade(pnl: number, r: number): Trade {
  const t = '2026-01-05T12:00:00.000Z';
  return {
    instrument: 'EUR_USD',
    side: 'LONG',
    signal_time: t,
    entry_time: t,
    entry_price: 1,
    exit_time: t,
    exit_price: 1,
    exit_reason: 'stop',
    volume_lots: 1,
    pnl,
    r_multiple: r,
    duration_seconds: 300,
    commission: 0,
  };
}

// In the order they closed: +100, −50, −30, +200, −20, −10, −40.
const TRADES = [trade(100, 1), trade(-50, -0.5), trade(-30, -0.3), trade(200, 2), trade(-20, -0.2), trade(-10, -0.1), trade(-40, -0.4)];

describe('trade statistics', () => {
  it('count wins, sum profits and losses, and find the longest losing run', () => {
    // Gross profit 100 + 200 = 300; gross loss 50 + 30 + 20 + 10 + 40 = 150; profit factor 300 / 150 = 2;
    // expectancy (300 − 150) / 7 = 21.43; win rate 2 / 7; average R (1 − 0.5 − 0.3 + 2 − 0.2 − 0.1 − 0.4) / 7
    // = 1.5 / 7; the longest run of losses is the last three.
    expect(tradeStats(TRADES)).toEqual({
      trade_count: 7,
      win_rate: 2 / 7,
      profit_factor: 2,
      expectancy: 150 / 7,
      average_r: expect.closeTo(1.5 / 7, 12),
      longest_losing_streak: 3,
      gross_profit: 300,
      gross_loss: 150,
    });
  });

  it('have no profit factor without a loss, and zeros without trades', () => {
    expect(tradeStats([trade(10, 1)]).profit_factor).toBeNull();
    expect(tradeStats([])).toMatchObject({ trade_count: 0, win_rate: 0, expectancy: 0, average_r: 0, profit_factor: null, longest_losing_streak: 0 });
  });
});

describe('the equity curve', () => {
  it('keeps the largest drawdown in money and in percent, each its own maximum', () => {
    // 100 → 50: 50 down, 50 %. Then a peak of 1 000 → 800: 200 down, 20 %.
    const curve = new EquityCurve(100);
    for (const [i, equity] of [50, 1000, 800].entries()) curve.mark(i * 300, equity, false);
    expect(curve.maxDrawdown).toBe(200);
    expect(curve.maxDrawdownPercent).toBe(50);
    expect(curve.drawdown).toBe(200);
    expect(curve.drawdownPercent).toBe(20);
  });

  it('takes each UTC day’s last mark as the day’s equity, and counts the marks with a position open', () => {
    const curve = new EquityCurve(1000);
    curve.mark(10 * 3600, 1100, true);
    curve.mark(20 * 3600, 990, true);
    curve.mark(DAY + 3600, 1050, false);
    curve.mark(2 * DAY, 1029, false);
    curve.mark(3 * DAY + 600, 1080, false);
    expect(curve.dailyEquity()).toEqual([990, 1050, 1029, 1080]);
    expect(curve.exposedMarks / curve.marks).toBe(0.4);
  });
});

describe('the days of the daily returns', () => {
  // 2026-03-01 was a Sunday.
  const SUNDAY = Date.UTC(2026, 2, 1) / 1000;

  it('count Sunday evening’s session with Monday, as the FX trading day does', () => {
    const curve = new EquityCurve(1000);
    curve.mark(SUNDAY - DAY + 10 * 3600, 1000, false); // a Saturday (a market that never closes)
    curve.mark(SUNDAY + 22 * 3600, 1010, false);
    curve.mark(SUNDAY + 23 * 3600 + 3000, 1020, false);
    curve.mark(SUNDAY + DAY + 12 * 3600, 1030, false); // Monday
    curve.mark(SUNDAY + 2 * DAY + 3600, 1040, false); // Tuesday
    expect(curve.dailyEquity()).toEqual([1000, 1030, 1040]);
  });

  it('are five a week on the FX week: Sunday 22:00 to Friday 22:00 UTC', () => {
    const curve = new EquityCurve(1000);
    const weeks = 4;
    for (let t = SUNDAY + 22 * 3600; t < SUNDAY + weeks * 7 * DAY; t += 300) {
      const weekSecond = (t - SUNDAY) % (7 * DAY);
      if (weekSecond >= 22 * 3600 && weekSecond < 5 * DAY + 22 * 3600) curve.mark(t, 1000 + (t - SUNDAY) / 3600, false);
    }
    expect(curve.dailyEquity()).toHaveLength(weeks * 5);
  });
});

describe('daily ratios', () => {
  it('are Sharpe and Sortino of the daily returns, annualised by √252', () => {
    // Equity 1000 (initial), 990, 1050, 1029, 1080: returns −0.01, 0.0606061, −0.02, 0.0495627;
    // mean 0.0200422; sample stdev 0.0409178; downside deviation √((0.01² + 0.02²) / 4) = 0.0111803.
    // Sharpe 0.0200422 / 0.0409178 × √252 = 7.7756; Sortino 0.0200422 / 0.0111803 × √252 = 28.4571.
    const { sharpe, sortino } = dailyRatios(1000, [990, 1050, 1029, 1080]);
    expect(sharpe).toBeCloseTo(7.7756, 4);
    expect(sortino).toBeCloseTo(28.4571, 4);
  });

  it('are null with fewer than 2 days, Sortino also without a losing day', () => {
    expect(dailyRatios(1000, [1010])).toEqual({ sharpe: null, sortino: null });
    expect(dailyRatios(1000, [1010, 1030]).sortino).toBeNull();
    expect(dailyRatios(1000, [1000, 1000])).toEqual({ sharpe: null, sortino: null });
  });
});

describe('CAGR', () => {
  it('compounds over the window in years of 365.25 days', () => {
    // 1 000 → 1 210 in two years: √1.21 − 1 = 0.1.
    expect(cagrOf(1000, 1210, 2 * 365.25 * DAY)).toBeCloseTo(0.1, 12);
    expect(cagrOf(1000, 0, DAY)).toBe(-1);
    expect(cagrOf(0, 10, DAY)).toBeNull();
  });
});

describe('metricsOf', () => {
  it('puts it together, money to the cent and ratios to 4 decimals', () => {
    const curve = new EquityCurve(1000);
    curve.mark(10 * 3600, 1100, true);
    curve.mark(20 * 3600, 990, true);
    curve.mark(DAY + 3600, 1050, false);
    curve.mark(2 * DAY, 1029, false);
    curve.mark(3 * DAY + 600, 1150, false);
    expect(metricsOf(TRADES, curve, 1150, 365.25 * DAY)).toEqual({
      net_profit: 150,
      trade_count: 7,
      win_rate: 0.2857,
      profit_factor: 2,
      expectancy: 21.43,
      average_r: 0.2143,
      max_drawdown: 110,
      max_drawdown_percent: 10,
      sharpe: expect.any(Number),
      sortino: expect.any(Number),
      cagr: 0.15,
      exposure: 0.4,
      longest_losing_streak: 3,
      gross_profit: 300,
      gross_loss: 150,
      final_equity: 1150,
    });
  });
});
