import { describe, expect, it } from 'vitest';
import { scheduleOf } from '../../src/ctrader/schedule.js';
import { isScheduledOpen } from '../../src/trading-schedule.js';
import { FX_WEEK } from './fake-symbols.js';

const symbol = (extra: Record<string, unknown>) => scheduleOf({ symbolId: 1, digits: 5, pipPosition: 4, schedule: [], holiday: [], ...extra });

describe('cTrader trading schedule', () => {
  it('is open inside a weekly interval counted from Sunday 00:00', () => {
    const fx = symbol({ schedule: FX_WEEK, scheduleTimeZone: 'UTC' });
    expect(isScheduledOpen(fx, Date.UTC(2026, 0, 7, 12))).toBe(true);
    expect(isScheduledOpen(fx, Date.UTC(2026, 0, 11, 21, 59, 59))).toBe(false);
    expect(isScheduledOpen(fx, Date.UTC(2026, 0, 11, 22))).toBe(true);
    expect(isScheduledOpen(fx, Date.UTC(2026, 0, 9, 22))).toBe(false);
  });

  it('reads the intervals in the symbol time zone', () => {
    // 09:00–17:30 New York time, Monday to Friday; 2026-01-07 is EST (UTC−5).
    const days = [1, 2, 3, 4, 5].map((d) => ({ startSecond: d * 86_400 + 9 * 3600, endSecond: d * 86_400 + 17.5 * 3600 }));
    const stocks = symbol({ schedule: days, scheduleTimeZone: 'America/New_York' });
    expect(isScheduledOpen(stocks, Date.UTC(2026, 0, 7, 13, 59))).toBe(false);
    expect(isScheduledOpen(stocks, Date.UTC(2026, 0, 7, 14, 0))).toBe(true);
    expect(isScheduledOpen(stocks, Date.UTC(2026, 0, 7, 22, 29))).toBe(true);
    expect(isScheduledOpen(stocks, Date.UTC(2026, 0, 7, 22, 30))).toBe(false);
  });

  it('is closed on a holiday, every year when it recurs', () => {
    const christmas = Date.UTC(2025, 11, 25) / 86_400_000;
    const fx = symbol({ schedule: FX_WEEK, holiday: [{ holidayDate: christmas, isRecurring: true, scheduleTimeZone: 'UTC' }] });
    expect(isScheduledOpen(fx, Date.UTC(2025, 11, 25, 12))).toBe(false);
    expect(isScheduledOpen(fx, Date.UTC(2030, 11, 25, 12))).toBe(false);
    expect(isScheduledOpen(fx, Date.UTC(2025, 11, 24, 12))).toBe(true);
  });

  it('closes only the hours a holiday names', () => {
    const day = Date.UTC(2026, 0, 7) / 86_400_000;
    const fx = symbol({
      schedule: FX_WEEK,
      holiday: [{ holidayDate: day, isRecurring: false, scheduleTimeZone: 'UTC', startSecond: 10 * 3600, endSecond: 14 * 3600 }],
    });
    expect(isScheduledOpen(fx, Date.UTC(2026, 0, 7, 9))).toBe(true);
    expect(isScheduledOpen(fx, Date.UTC(2026, 0, 7, 12))).toBe(false);
    expect(isScheduledOpen(fx, Date.UTC(2027, 0, 7, 12))).toBe(true);
  });

  it('treats a symbol without intervals as always open and an unknown zone as UTC', () => {
    expect(isScheduledOpen(symbol({}), Date.UTC(2026, 0, 10, 12))).toBe(true);
    const fx = symbol({ schedule: FX_WEEK, scheduleTimeZone: 'Not/AZone' });
    expect(isScheduledOpen(fx, Date.UTC(2026, 0, 10, 12))).toBe(false);
  });
});
