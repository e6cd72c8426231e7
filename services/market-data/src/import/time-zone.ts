import { ZoneOffsets } from '../store/fx-calendar.js';

/** How a file's wall-clock times become UTC: a fixed offset, or a zone whose offset follows its DST. */
export interface WallClock {
  /** As the user wrote it, for the report. */
  readonly name: string;
  /** The UTC instant of a wall time written as if it were UTC (Date.UTC of its fields). */
  toUtc(wallMs: number): number;
}

const HOUR_MS = 3_600_000;
const FIXED = /^(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?$/i;

/** A fixed offset from UTC (`-5`: EST without DST). */
export function fixedOffset(hours: number, name = `UTC${hours < 0 ? '-' : '+'}${Math.abs(hours)}`): WallClock {
  const offsetMs = hours * HOUR_MS;
  return { name, toUtc: (wallMs) => wallMs - offsetMs };
}

export const UTC: WallClock = { name: 'UTC', toUtc: (wallMs) => wallMs };

/**
 * `--tz`: `UTC`/`GMT`, a fixed offset (`+2`, `-05:00`, `+5:30`, `UTC+3`), or an IANA zone
 * (`Europe/Athens`, `EET`), whose offset changes with its DST. Throws a RangeError naming the value otherwise.
 */
export function parseTimeZone(value: string): WallClock {
  if (/^(UTC|GMT|Z)$/i.test(value)) return UTC;
  const fixed = FIXED.exec(value);
  if (fixed) {
    const hours = Number(fixed[2]) + Number(fixed[3] ?? 0) / 60;
    if (hours > 14 || Number(fixed[3] ?? 0) >= 60) throw new RangeError(`--tz ${value}: an offset is at most ±14:00`);
    return fixedOffset(fixed[1] === '-' ? -hours : hours, value);
  }
  let zone: ZoneOffsets;
  try {
    zone = new ZoneOffsets(value);
  } catch {
    throw new RangeError(`--tz ${value}: expected UTC, an offset like +2 or -05:00, or an IANA zone like Europe/Athens`);
  }
  return { name: value, toUtc: (wallMs) => zone.toUtc(wallMs) };
}
