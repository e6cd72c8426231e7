import type { TradingSchedule } from '../trading-schedule.js';
import type { FullSymbol } from './wire.js';

const DAY_SECONDS = 86_400;

/** A symbol's trading schedule from its ProtoOASymbol: ProtoOAInterval sessions and ProtoOAHoliday days. */
export function scheduleOf(symbol: FullSymbol): TradingSchedule {
  const timeZone = knownTimeZone(symbol.scheduleTimeZone);
  return {
    intervals: symbol.schedule.map((i) => ({ startSecond: i.startSecond, endSecond: i.endSecond })),
    timeZone,
    holidays: symbol.holiday.map((h) => ({
      date: h.holidayDate,
      isRecurring: h.isRecurring ?? false,
      timeZone: knownTimeZone(h.scheduleTimeZone ?? timeZone),
      // "Amount of seconds from 00:00:00 of the holiday day"; absent means the whole day.
      startSecond: h.startSecond ?? 0,
      endSecond: h.endSecond ?? DAY_SECONDS,
    })),
  };
}

/** The zone when the runtime knows it, else UTC (an unknown name must not stop the feed). */
function knownTimeZone(name: string | undefined): string {
  if (!name || name === 'UTC') return 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return name;
  } catch {
    return 'UTC';
  }
}
