/**
 * Weekly FX trading hours, simplified: every symbol trades from Sunday 22:00 UTC to Friday
 * 22:00 UTC without a break. Holidays, daylight-saving shifts of the open and the daily metals
 * pause are not modelled.
 */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
export const WEEK_MS = 7 * DAY_MS;
/** 1970-01-04T00:00Z, the first Sunday after the epoch. */
const FIRST_SUNDAY_MS = 3 * DAY_MS;
/** Offsets inside a week that starts on Sunday 00:00 UTC. */
const OPEN_OFFSET_MS = 22 * HOUR_MS;
const CLOSE_OFFSET_MS = 5 * DAY_MS + 22 * HOUR_MS;

function offsetInWeek(epochMs: number): number {
  const offset = (epochMs - FIRST_SUNDAY_MS) % WEEK_MS;
  return offset < 0 ? offset + WEEK_MS : offset;
}

export function isWeeklyOpen(epochMs: number): boolean {
  const offset = offsetInWeek(epochMs);
  return offset >= OPEN_OFFSET_MS && offset < CLOSE_OFFSET_MS;
}

/** The next weekly open (Sunday 22:00 UTC) at or after `epochMs`. */
export function nextWeeklyOpen(epochMs: number): number {
  const offset = offsetInWeek(epochMs);
  const weekStart = epochMs - offset;
  return offset <= OPEN_OFFSET_MS ? weekStart + OPEN_OFFSET_MS : weekStart + WEEK_MS + OPEN_OFFSET_MS;
}

/** The last weekly close (Friday 22:00 UTC) at or before `epochMs`. */
export function previousWeeklyClose(epochMs: number): number {
  const offset = offsetInWeek(epochMs);
  const weekStart = epochMs - offset;
  return offset >= CLOSE_OFFSET_MS ? weekStart + CLOSE_OFFSET_MS : weekStart - WEEK_MS + CLOSE_OFFSET_MS;
}

/** Hour of the UTC day, 0..23. */
export function utcHour(epochMs: number): number {
  const inDay = epochMs % DAY_MS;
  return Math.floor((inDay < 0 ? inDay + DAY_MS : inDay) / HOUR_MS);
}
