/**
 * The FX week in New York time, DST-correct through Intl: the market closes on Friday at 17:00
 * New York and opens again on Sunday at 17:00, and the trading day rolls at 17:00 (by default).
 */

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
const WEEK_MS = 7 * DAY_MS;

export const NEW_YORK = 'America/New_York';
/** The hour of New York time at which the FX trading day rolls, and the weekend starts on Friday and ends on Sunday. */
export const DAY_ROLL_HOUR = 17;

const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(timeZone, format);
  }
  return format;
}

/** Throws a RangeError for a zone Intl does not know. */
export function checkTimeZone(timeZone: string): void {
  formatOf(timeZone);
}

/**
 * The zone's offset from UTC at an instant, in ms (New York in winter: −5 h), through Intl. An
 * offset holds for hours at a time, so each zone remembers the last whole hour it was asked about.
 */
export class ZoneOffsets {
  private hour = Number.NaN;
  private offsetMs = 0;
  private wallHour = Number.NaN;
  private wallOffsetMs = 0;

  constructor(readonly timeZone: string) {
    checkTimeZone(timeZone);
  }

  at(utcMs: number): number {
    const hour = Math.floor(utcMs / HOUR_MS);
    if (hour !== this.hour) {
      this.hour = hour;
      this.offsetMs = offsetAt(this.timeZone, hour * HOUR_MS);
    }
    return this.offsetMs;
  }

  /**
   * The instant at which the zone's clocks read `wallMs` (a wall time written as if it were UTC).
   * A wall time the zone skips (spring forward) is read with the offset before the change; one it
   * repeats (fall back) as its first occurrence. Zones change on whole hours, so each wall hour is
   * asked about once.
   */
  toUtc(wallMs: number): number {
    const wallHour = Math.floor(wallMs / HOUR_MS);
    if (wallHour !== this.wallHour) {
      this.wallHour = wallHour;
      this.wallOffsetMs = this.offsetOfWall(wallHour * HOUR_MS);
    }
    return wallMs - this.wallOffsetMs;
  }

  private offsetOfWall(wallMs: number): number {
    const before = offsetAt(this.timeZone, wallMs - DAY_MS);
    const after = offsetAt(this.timeZone, wallMs + DAY_MS);
    if (before === after) return before;
    // Around a change: the earlier offset if the wall time exists under it, else the later one.
    return offsetAt(this.timeZone, wallMs - before) === before ? before : after;
  }
}

function offsetAt(timeZone: string, utcMs: number): number {
  const parts = formatOf(timeZone).formatToParts(new Date(utcMs));
  const value = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(value('year'), value('month') - 1, value('day'), value('hour'), value('minute'), value('second'));
  return wall - utcMs;
}

/** New York's calendar, for the FX week and the trading day. */
export class FxCalendar {
  private readonly offsets: ZoneOffsets;

  /** `dayRollHour`: the New York hour at which D1 bars start (the weekend stays Friday to Sunday 17:00). */
  constructor(private readonly dayRollHour = DAY_ROLL_HOUR) {
    this.offsets = new ZoneOffsets(NEW_YORK);
  }

  /** The start (UTC ms) of the trading day holding `utcMs`: the last roll hour at or before it. */
  dayStart(utcMs: number): number {
    const wall = utcMs + this.offsets.at(utcMs);
    const rollMs = this.dayRollHour * HOUR_MS;
    const wallStart = Math.floor((wall - rollMs) / DAY_MS) * DAY_MS + rollMs;
    // The roll hour is never one a DST change skips or repeats (New York changes at 02:00).
    return this.offsets.toUtc(wallStart);
  }

  /** Whether the market is closed at `utcMs`: Friday 17:00 to Sunday 17:00 New York time. */
  isWeekend(utcMs: number): boolean {
    const wall = utcMs + this.offsets.at(utcMs);
    const weekday = (Math.floor(wall / DAY_MS) + 4) % 7; // 1970-01-01 was a Thursday; 0 is Sunday
    const hour = Math.floor((wall % DAY_MS) / HOUR_MS);
    return (weekday === 5 && hour >= DAY_ROLL_HOUR) || weekday === 6 || (weekday === 0 && hour < DAY_ROLL_HOUR);
  }

  /** The start (Friday 17:00 New York, UTC ms) of the weekend `utcMs` is in, else of the next one. */
  weekendStart(utcMs: number): number {
    const wall = utcMs + this.offsets.at(utcMs);
    const weekday = (Math.floor(wall / DAY_MS) + 4) % 7;
    const hour = Math.floor((wall % DAY_MS) / HOUR_MS);
    let daysToFriday = (5 - weekday + 7) % 7;
    if (weekday === 6 || (weekday === 0 && hour < DAY_ROLL_HOUR)) daysToFriday -= 7;
    return this.offsets.toUtc(Math.floor(wall / DAY_MS) * DAY_MS + daysToFriday * DAY_MS + DAY_ROLL_HOUR * HOUR_MS);
  }

  /** The end (Sunday 17:00 New York, UTC ms) of the weekend starting at `weekendStartMs`. */
  weekendEnd(weekendStartMs: number): number {
    return this.offsets.toUtc(weekendStartMs + this.offsets.at(weekendStartMs) + 2 * DAY_MS);
  }

  /** The market time (ms) in [fromMs, toMs): the span less the weekends in it. */
  openMs(fromMs: number, toMs: number): number {
    let open = 0;
    let at = fromMs;
    while (at < toMs) {
      const closes = this.weekendStart(at);
      if (at < closes) open += Math.min(toMs, closes) - at;
      at = this.weekendEnd(closes);
    }
    return open;
  }
}

export const TIME = { MINUTE_MS, HOUR_MS, DAY_MS, WEEK_MS };
