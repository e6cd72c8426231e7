const DAY_SECONDS = 86_400;
const WEEK_SECONDS = 7 * DAY_SECONDS;
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

export interface TradingHoliday {
  /** Days since 1970-01-01 (ProtoOAHoliday.holidayDate). */
  date: number;
  isRecurring: boolean;
  timeZone: string;
  startSecond: number;
  endSecond: number;
}

/**
 * When a symbol trades, as the venue gives it (cTrader's ProtoOASymbol): weekly sessions in a
 * time zone, and holidays. Plain data, so it travels with the symbol's catalog entry (as JSON,
 * to other replicas) and whoever holds it can tell whether the market is open, session or not.
 */
export interface TradingSchedule {
  /** ProtoOAInterval: "seconds starting from SUNDAY 00:00 in specified time zone", end exclusive. */
  intervals: { startSecond: number; endSecond: number }[];
  timeZone: string;
  holidays: TradingHoliday[];
}

/**
 * Whether the schedule has the symbol trading at `epochMs`: inside one of its weekly
 * intervals and not on a holiday. A symbol listing no interval has no hours set by the venue
 * and counts as always open.
 */
export function isScheduledOpen(schedule: TradingSchedule, epochMs: number): boolean {
  if (schedule.intervals.length === 0) return true;
  const local = localTime(schedule.timeZone, epochMs);
  const weekSecond = local.weekday * DAY_SECONDS + local.secondOfDay;
  // An interval may run past Saturday 24:00 into the next week's first seconds.
  const inSession = schedule.intervals.some(
    (i) => (weekSecond >= i.startSecond && weekSecond < i.endSecond) || (weekSecond + WEEK_SECONDS >= i.startSecond && weekSecond + WEEK_SECONDS < i.endSecond),
  );
  return inSession && !schedule.holidays.some((h) => isHoliday(h, epochMs));
}

function isHoliday(holiday: TradingHoliday, epochMs: number): boolean {
  const local = localTime(holiday.timeZone, epochMs);
  const day = new Date(holiday.date * DAY_SECONDS * 1000);
  const sameDay = local.month === day.getUTCMonth() + 1 && local.day === day.getUTCDate() && (holiday.isRecurring || local.year === day.getUTCFullYear());
  return sameDay && local.secondOfDay >= holiday.startSecond && local.secondOfDay < holiday.endSecond;
}

interface LocalTime {
  year: number;
  month: number;
  day: number;
  /** 0 = Sunday. */
  weekday: number;
  secondOfDay: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
/** The last answer per zone: the readiness check asks for every symbol at the same instant. */
const lastLocal = new Map<string, { epochSecond: number; local: LocalTime }>();

function localTime(timeZone: string, epochMs: number): LocalTime {
  const epochSecond = Math.floor(epochMs / 1000);
  const cached = lastLocal.get(timeZone);
  if (cached?.epochSecond === epochSecond) return cached.local;
  const local = timeZone === 'UTC' ? utcTime(epochSecond) : zonedTime(timeZone, epochSecond);
  lastLocal.set(timeZone, { epochSecond, local });
  return local;
}

function utcTime(epochSecond: number): LocalTime {
  const date = new Date(epochSecond * 1000);
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    weekday: date.getUTCDay(),
    secondOfDay: date.getUTCHours() * 3600 + date.getUTCMinutes() * 60 + date.getUTCSeconds(),
  };
}

function zonedTime(timeZone: string, epochSecond: number): LocalTime {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      weekday: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(epochSecond * 1000).map((p) => [p.type, p.value]));
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    weekday: WEEKDAYS.indexOf(parts.weekday as string),
    secondOfDay: Number(parts.hour) * 3600 + Number(parts.minute) * 60 + Number(parts.second),
  };
}
