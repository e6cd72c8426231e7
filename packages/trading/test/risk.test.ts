import { describe, expect, it } from 'vitest';
import { RISK_LIMITS_OFF, RiskBook, tradingDayOf, type RiskLimits } from '../src/risk.js';

const M5 = 300_000;
/** Tuesday 2026-01-06 12:00 UTC (07:00 in New York, winter). */
const TUESDAY = Date.UTC(2026, 0, 6, 12);
const HOUR = 3_600_000;
const book = (limits: Partial<RiskLimits> = {}) => new RiskBook({ limits: { ...RISK_LIMITS_OFF, ...limits }, candleMs: M5 });
const long = (instrument: string, lots = 1) => ({ instrument, side: 1 as const, lots });
const short = (instrument: string, lots = 1) => ({ instrument, side: -1 as const, lots });

describe('the trading day', () => {
  it('rolls at 17:00 New York in winter (22:00 UTC) and in summer (21:00 UTC)', () => {
    expect(tradingDayOf(Date.UTC(2026, 0, 6, 21, 59))).toBe('2026-01-06');
    expect(tradingDayOf(Date.UTC(2026, 0, 6, 22, 0))).toBe('2026-01-07');
    expect(tradingDayOf(Date.UTC(2026, 6, 7, 20, 59))).toBe('2026-07-07');
    expect(tradingDayOf(Date.UTC(2026, 6, 7, 21, 0))).toBe('2026-07-08');
  });

  it('names the week’s first day Monday from Sunday 17:00, across the change to summer time', () => {
    expect(tradingDayOf(Date.UTC(2026, 0, 4, 22, 0))).toBe('2026-01-05');
    // New York moves to summer time on Sunday 2026-03-08 at 02:00: that evening's open is 21:00 UTC.
    expect(tradingDayOf(Date.UTC(2026, 2, 8, 20, 59))).toBe('2026-03-08');
    expect(tradingDayOf(Date.UTC(2026, 2, 8, 21, 0))).toBe('2026-03-09');
  });

  it('takes another hour and zone when configured', () => {
    expect(tradingDayOf(Date.UTC(2026, 0, 6, 23, 59), 0, 'UTC')).toBe('2026-01-06');
    expect(tradingDayOf(Date.UTC(2026, 0, 7, 0, 0), 0, 'UTC')).toBe('2026-01-07');
  });
});

describe('the day of the marks', () => {
  it('starts a new day at each roll, marks a minute apart, across the change to summer time (the lab marks every candle)', () => {
    // Every minute from Friday 2026-03-06 to Tuesday 2026-03-10 (New York springs forward on Sunday
    // the 8th): the day the book keeps is tradingDayOf's at every mark, though it asks Intl once a day or so.
    const b = new RiskBook({ limits: { ...RISK_LIMITS_OFF, dailyLossLimitPercent: 50 }, candleMs: 60_000 });
    const starts: string[] = [];
    let last: string | null = null;
    for (let ms = Date.UTC(2026, 2, 6), equity = 100_000; ms < Date.UTC(2026, 2, 10); ms += 60_000, equity--) {
      b.markEquity(ms, equity);
      const { day } = b.snapshot();
      if (day !== last) starts.push(`${day} ${new Date(ms).toISOString().slice(11, 16)}`);
      last = day;
      expect(day).toBe(tradingDayOf(ms));
    }
    // Each day by its name (the date it ends on) and the UTC time of its first mark: 22:00 in winter, 21:00 from Sunday on.
    expect(starts).toEqual(['2026-03-06 00:00', '2026-03-07 22:00', '2026-03-08 22:00', '2026-03-09 21:00', '2026-03-10 21:00']);
  });
});

describe('the limits before an entry', () => {
  it('holds one position per pair, unless configured otherwise', () => {
    const risk = book();
    risk.opened('1', long('EUR_USD'));
    expect(risk.check(short('EUR_USD'), TUESDAY)).toEqual({ ok: false, skip: 'position_open_on_pair', detail: 'a position on EUR_USD is open' });
    expect(risk.check(long('GBP_USD'), TUESDAY)).toEqual({ ok: true });
    expect(book({ onePositionPerPair: false }).check(long('EUR_USD'), TUESDAY)).toEqual({ ok: true });
  });

  it('counts MAX_OPEN_TRADES over every pair, and frees a place when one closes', () => {
    const risk = book({ maxOpenTrades: 2 });
    risk.opened('1', long('EUR_USD'));
    risk.opened('2', long('GBP_USD'));
    expect(risk.check(long('USD_JPY'), TUESDAY)).toMatchObject({ ok: false, skip: 'max_open_trades', detail: '2 open, the limit is 2' });
    risk.closed('2', 10, TUESDAY);
    expect(risk.check(long('USD_JPY'), TUESDAY)).toEqual({ ok: true });
  });

  it('caps the net lots in each currency across pairs: long EUR/USD and long EUR/GBP are 2 lots of EUR', () => {
    const risk = book({ maxCurrencyExposureLots: 2 });
    risk.opened('1', long('EUR_USD'));
    risk.opened('2', long('EUR_GBP'));
    expect(Object.fromEntries(risk.exposure())).toEqual({ EUR: 2, USD: -1, GBP: -1 });
    expect(risk.check(long('EUR_JPY', 0.01), TUESDAY)).toMatchObject({
      ok: false,
      skip: 'currency_exposure',
      detail: 'EUR would be 2.01 lots net, the limit is 2',
    });
    // A short EUR/CHF takes EUR back toward flat: allowed.
    expect(risk.check(short('EUR_CHF', 1), TUESDAY)).toEqual({ ok: true });
    // Long GBP/USD: GBP −1 + 1 = 0, USD −1 − 1.5 = −2.5: over on USD.
    expect(risk.check(long('GBP_USD', 1.5), TUESDAY)).toMatchObject({ skip: 'currency_exposure', detail: 'USD would be -2.50 lots net, the limit is 2' });
  });

  it('holds entries for N candles after K losses in a row, and a win ends the run', () => {
    const risk = book({ cooldown: { losses: 2, candles: 3 } });
    risk.closed('1', -5, TUESDAY);
    risk.closed('2', 5, TUESDAY);
    risk.closed('3', -5, TUESDAY);
    expect(risk.check(long('EUR_USD'), TUESDAY)).toEqual({ ok: true });
    risk.closed('4', -5, TUESDAY);
    expect(risk.check(long('EUR_USD'), TUESDAY + 3 * M5 - 1)).toMatchObject({
      ok: false,
      skip: 'cooldown',
      detail: '2 losses in a row: no entry until 2026-01-06T12:15:00.000Z',
    });
    expect(risk.check(long('EUR_USD'), TUESDAY + 3 * M5)).toEqual({ ok: true });
  });
});

describe('the kill switch', () => {
  it('halts on the daily loss limit of the day’s starting equity, holds every entry, and resumes only when told', () => {
    const risk = book({ dailyLossLimitPercent: 3 });
    expect(risk.markEquity(TUESDAY, 10_000)).toBeNull();
    expect(risk.markEquity(TUESDAY + HOUR, 9_701)).toBeNull();
    const halt = risk.markEquity(TUESDAY + 2 * HOUR, 9_700);
    expect(halt).toEqual({ reason: 'daily_loss_limit', at: TUESDAY + 2 * HOUR, detail: "lost 300.00 of the day's 10000.00: the limit is 3%" });
    // Told once; later marks, a new day, a recovery: still halted.
    expect(risk.markEquity(TUESDAY + 24 * HOUR, 10_500)).toBeNull();
    expect(risk.check(long('EUR_USD'), TUESDAY + 24 * HOUR)).toMatchObject({ ok: false, skip: 'halted' });
    risk.resume(TUESDAY + 25 * HOUR, 10_500);
    expect(risk.halt).toBeNull();
    expect(risk.check(long('EUR_USD'), TUESDAY + 25 * HOUR)).toEqual({ ok: true });
  });

  it('measures the daily loss from the equity at the day’s roll, not from the peak', () => {
    const risk = book({ dailyLossLimitPercent: 3 });
    risk.markEquity(TUESDAY, 10_000);
    risk.markEquity(Date.UTC(2026, 0, 6, 21, 59), 9_800);
    // 17:00 New York: Wednesday's day starts at 9 750; 3 % of it is 292.50.
    expect(risk.markEquity(Date.UTC(2026, 0, 6, 22, 0), 9_750)).toBeNull();
    expect(risk.markEquity(Date.UTC(2026, 0, 7, 3, 0), 9_458)).toBeNull();
    expect(risk.markEquity(Date.UTC(2026, 0, 7, 4, 0), 9_457.5)).toMatchObject({ reason: 'daily_loss_limit' });
  });

  it('halts on the drawdown below the equity’s peak, over days', () => {
    const risk = book({ maxDrawdownPercent: 10 });
    risk.markEquity(TUESDAY, 10_000);
    risk.markEquity(TUESDAY + 30 * HOUR, 12_000);
    expect(risk.markEquity(TUESDAY + 60 * HOUR, 10_801)).toBeNull();
    expect(risk.markEquity(TUESDAY + 90 * HOUR, 10_800)).toEqual({
      reason: 'max_drawdown',
      at: TUESDAY + 90 * HOUR,
      detail: '1200.00 below the peak 12000.00: the limit is 10%',
    });
  });

  it('keeps the halt, the peak, the day and the cooldown in its snapshot, so a book restored from it is halted too', () => {
    const risk = book({ maxDrawdownPercent: 10, cooldown: { losses: 1, candles: 10 } });
    risk.markEquity(TUESDAY, 10_000);
    risk.closed('1', -1, TUESDAY);
    risk.markEquity(TUESDAY + HOUR, 8_999);
    const restored = new RiskBook({ limits: { ...RISK_LIMITS_OFF, maxDrawdownPercent: 10 }, candleMs: M5, state: risk.snapshot() });
    expect(restored.snapshot()).toEqual({
      halt: { reason: 'max_drawdown', at: TUESDAY + HOUR, detail: '1001.00 below the peak 10000.00: the limit is 10%' },
      equityPeak: 10_000,
      day: '2026-01-06',
      dayStartEquity: 10_000,
      consecutiveLosses: 0,
      cooldownUntil: TUESDAY + 10 * M5,
    });
    expect(restored.check(long('EUR_USD'), TUESDAY + HOUR)).toMatchObject({ skip: 'halted' });
  });
});
