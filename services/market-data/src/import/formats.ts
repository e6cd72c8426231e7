import { MICROS, type CandleRow } from '../store/candle-store.js';
import { fixedOffset, type WallClock } from './time-zone.js';

/** The file formats the importer reads. */
export const FORMATS = ['mt5', 'mt4', 'histdata', 'dukascopy', 'csv'] as const;
export type FormatName = (typeof FORMATS)[number];

/** A row read into a candle of the series being imported, or why it could not be. */
export type ParsedRow = CandleRow | string;

/** How the rows of one file are read, made from its first line. */
export interface RowReader {
  /** Whether the first line is a header, not a row. */
  readonly hasHeader: boolean;
  parse(line: string): ParsedRow;
}

export interface Format {
  readonly name: FormatName;
  /** Whether `--tz` applies: the file's times are the server's wall clock (its zone given by the user). */
  readonly takesTimeZone: boolean;
  /** Whether the first line is this format's. */
  detect(firstLine: string): boolean;
  /**
   * The reader of a file whose first line is `firstLine`, making rows of `series` (the store's
   * key of the rows, set as they are made: millions of rows are not copied again); a string says
   * why the file is not of this format.
   */
  reader(firstLine: string, clock: WallClock, series: number): RowReader | string;
}

/** HistData.com's times: Eastern Standard Time all year, without daylight saving. */
export const HISTDATA_CLOCK = fixedOffset(-5, 'EST (UTC-5, no DST)');

const POWERS_OF_TEN = Array.from({ length: 16 }, (_, i) => 10 ** i);

/**
 * The number `text` writes in [start, end) (NaN for an empty field: Number('') is 0). A plain
 * decimal of at most 15 digits is read by hand, as its digits over a power of ten: both exact, so
 * the one division rounds to the same double as Number() reads, several times faster. Anything
 * else goes to Number().
 */
function numberIn(text: string, start: number, end: number): number {
  if (end <= start) return Number.NaN;
  const isNegative = text.charCodeAt(start) === 45;
  let digits = 0;
  let mantissa = 0;
  let point = -1;
  for (let at = isNegative ? start + 1 : start; at < end; at++) {
    const code = text.charCodeAt(at);
    if (code === 46 && point === -1) {
      point = at;
      continue;
    }
    const digit = code - 48;
    if (digit < 0 || digit > 9 || ++digits > 15) return Number(text.slice(start, end));
    mantissa = mantissa * 10 + digit;
  }
  if (digits === 0) return Number.NaN;
  const value = point === -1 ? mantissa : mantissa / (POWERS_OF_TEN[end - point - 1] as number);
  return isNegative ? -value : value;
}

/**
 * The price `text` writes in [start, end), in millionths (the store's unit), NaN for an empty
 * field or one beyond a safe integer. A plain decimal is read digit by digit, exactly; one of
 * more than six decimals is rounded to the nearest millionth, anything else goes to Number().
 */
function microsIn(text: string, start: number, end: number): number {
  if (end <= start) return Number.NaN;
  const isNegative = text.charCodeAt(start) === 45;
  let digits = 0;
  let mantissa = 0;
  let decimals = -1;
  for (let at = isNegative ? start + 1 : start; at < end; at++) {
    const code = text.charCodeAt(at);
    if (code === 46 && decimals === -1) {
      decimals = 0;
      continue;
    }
    const digit = code - 48;
    if (digit < 0 || digit > 9 || ++digits > 15) return Math.round(Number(text.slice(start, end)) * MICROS);
    mantissa = mantissa * 10 + digit;
    if (decimals !== -1) decimals++;
  }
  if (digits === 0) return Number.NaN;
  const places = decimals === -1 ? 0 : decimals;
  const value = places <= 6 ? mantissa * (POWERS_OF_TEN[6 - places] as number) : Math.round(mantissa / (POWERS_OF_TEN[places - 6] as number));
  if (value > Number.MAX_SAFE_INTEGER) return Number.NaN;
  return isNegative ? -value : value;
}

const MAX_FIELDS = 64;

/** A line's fields as offsets into it, without a string per field (a file of millions of rows makes a lot of garbage otherwise). */
class Fields {
  /** Fields of the last line split (a line of more than MAX_FIELDS counts MAX_FIELDS + 1). */
  count = 0;
  private line = '';
  private readonly starts = new Int32Array(MAX_FIELDS);
  private readonly ends = new Int32Array(MAX_FIELDS);

  constructor(private readonly delimiter: string) {}

  split(line: string): number {
    this.line = line;
    let start = 0;
    let count = 0;
    for (;;) {
      const end = line.indexOf(this.delimiter, start);
      if (count === MAX_FIELDS) return (this.count = MAX_FIELDS + 1);
      this.starts[count] = start;
      this.ends[count] = end === -1 ? line.length : end;
      count++;
      if (end === -1) return (this.count = count);
      start = end + 1;
    }
  }

  /** A price, in millionths. */
  micros(i: number): number {
    return i < this.count ? microsIn(this.line, this.starts[i] as number, this.ends[i] as number) : Number.NaN;
  }

  number(i: number): number {
    return i < this.count ? numberIn(this.line, this.starts[i] as number, this.ends[i] as number) : Number.NaN;
  }

  text(i: number): string {
    return i < this.count ? this.line.slice(this.starts[i], this.ends[i]) : '';
  }
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Date.UTC of the fields, NaN unless each is in range (so 2024.02.30 is malformed, not March 1st). */
function wall(year: number, month: number, day: number, hour: number, minute: number, second: number, ms = 0): number {
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= (DAYS_IN_MONTH[month - 1] as number))) return Number.NaN;
  if (!(hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && second >= 0 && second <= 59 && ms >= 0 && ms <= 999)) return Number.NaN;
  const time = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  return month === 2 && day === 29 && new Date(time).getUTCMonth() !== 1 ? Number.NaN : time;
}

/**
 * The wall-clock midnight of a date field, remembered for the next row: the rows of a day share
 * their date, so it is read once a day instead of once a row.
 */
class Dates {
  private field = '';
  private midnightMs = Number.NaN;

  constructor(private readonly read: (field: string) => number) {}

  midnight(field: string): number {
    if (field !== this.field) {
      this.field = field;
      this.midnightMs = this.read(field);
    }
    return this.midnightMs;
  }

  /** The same for the date that starts `line` and is `length` long, without cutting it out when it is the last one's. */
  midnightAtStart(line: string, length: number): number {
    return this.field.length === length && line.startsWith(this.field) ? this.midnightMs : this.midnight(line.slice(0, length));
  }
}

/** The two digits at `at` as a number, NaN unless both are digits. */
function twoDigits(text: string, at: number): number {
  const tens = text.charCodeAt(at) - 48;
  const ones = text.charCodeAt(at + 1) - 48;
  return tens >= 0 && tens <= 9 && ones >= 0 && ones <= 9 ? tens * 10 + ones : Number.NaN;
}

/** `HH`, `MM`, `SS` at those offsets of `text` (`secondAt` -1: none) as ms of the day, NaN when out of range. */
function timeOfDay(text: string, hourAt: number, minuteAt: number, secondAt: number): number {
  const hour = twoDigits(text, hourAt);
  const minute = twoDigits(text, minuteAt);
  const second = secondAt === -1 ? 0 : twoDigits(text, secondAt);
  return hour <= 23 && minute <= 59 && second <= 59 ? hour * 3_600_000 + minute * 60_000 + second * 1000 : Number.NaN;
}

/** A candle of the parsed fields (prices in millionths), or what is wrong with them. */
function candle(series: number, time: number, open: number, high: number, low: number, close: number, volume: number, spread: number | null): ParsedRow {
  if (Number.isNaN(time)) return 'malformed: the date or time does not read';
  if (!(open > 0 && high > 0 && low > 0 && close > 0)) return 'malformed: a price is missing, not a number or not positive';
  if (!(high >= low && high >= open && high >= close && low <= open && low <= close)) return 'malformed: high and low do not bound the open and close';
  if (!(volume >= 0)) return 'malformed: the volume is not a non-negative number';
  if (spread !== null && !(spread >= 0)) return 'malformed: the spread is not a non-negative number';
  return { series, time, open_micros: open, high_micros: high, low_micros: low, close_micros: close, volume, spread };
}

const MT5_DATE = /^(\d{4})\.(\d{2})\.(\d{2})$/;

function mt5Midnight(date: string): number {
  const d = MT5_DATE.exec(date);
  return d ? wall(Number(d[1]), Number(d[2]), Number(d[3]), 0, 0, 0) : Number.NaN;
}

/** `2024.01.02` and `00:00:00` or `00:00` (absent in a D1 export) on the wall clock. */
function mt5Time(dates: Dates, date: string, time: string | undefined, clock: WallClock): number {
  let ms = dates.midnight(date);
  if (time !== undefined) {
    if (time.length === 8 && time.charCodeAt(2) === 58 && time.charCodeAt(5) === 58) ms += timeOfDay(time, 0, 3, 6);
    else if (time.length === 5 && time.charCodeAt(2) === 58) ms += timeOfDay(time, 0, 3, -1);
    else return Number.NaN;
  }
  return Number.isNaN(ms) ? ms : clock.toUtc(ms);
}

/** MT5's "Export bars": `<DATE>\t<TIME>\t<OPEN>\t<HIGH>\t<LOW>\t<CLOSE>\t<TICKVOL>\t<VOL>\t<SPREAD>` (or comma-separated), server time. */
const mt5: Format = {
  name: 'mt5',
  takesTimeZone: true,
  detect: (line) => /^<DATE>/i.test(line),
  reader(header, clock, series) {
    const delimiter = header.includes('\t') ? '\t' : ',';
    const names = header.split(delimiter).map((n) => n.trim().toUpperCase());
    const at = (name: string) => names.indexOf(`<${name}>`);
    const [date, time, open, high, low, close] = [at('DATE'), at('TIME'), at('OPEN'), at('HIGH'), at('LOW'), at('CLOSE')] as const;
    const [tickVolume, volume, spread] = [at('TICKVOL'), at('VOL'), at('SPREAD')] as const;
    if ([date, open, high, low, close].some((i) => i === -1)) return 'an MT5 header names <DATE>, <OPEN>, <HIGH>, <LOW> and <CLOSE>';
    const volumeAt = tickVolume !== -1 ? tickVolume : volume;
    const dates = new Dates(mt5Midnight);
    const f = new Fields(delimiter);
    return {
      hasHeader: true,
      parse(line) {
        if (f.split(line) < names.length) return `malformed: ${f.count} fields where the header names ${names.length}`;
        return candle(
          series,
          mt5Time(dates, f.text(date), time === -1 ? undefined : f.text(time), clock),
          f.micros(open),
          f.micros(high),
          f.micros(low),
          f.micros(close),
          volumeAt === -1 ? 0 : f.number(volumeAt),
          spread === -1 ? null : f.number(spread),
        );
      },
    };
  },
};

/** MT4's history CSV, no header: `2024.01.02,00:00,1.1,1.2,1.0,1.1,123`, server time. */
const mt4: Format = {
  name: 'mt4',
  takesTimeZone: true,
  detect: (line) => /^\d{4}\.\d{2}\.\d{2},\d{2}:\d{2},/.test(line),
  reader(_first, clock, series) {
    const dates = new Dates(mt5Midnight);
    const f = new Fields(',');
    return {
      hasHeader: false,
      parse(line) {
        if (f.split(line) !== 7) return `malformed: ${f.count} fields where MT4 writes 7`;
        return candle(series, mt5Time(dates, f.text(0), f.text(1), clock), f.micros(2), f.micros(3), f.micros(4), f.micros(5), f.number(6), null);
      },
    };
  },
};

const HISTDATA_DATE = /^(\d{4})(\d{2})(\d{2})$/;

function histdataMidnight(date: string): number {
  const d = HISTDATA_DATE.exec(date);
  return d ? wall(Number(d[1]), Number(d[2]), Number(d[3]), 0, 0, 0) : Number.NaN;
}

/** HistData.com's generic ASCII M1: `20240102 000000;1.104270;1.104290;1.104190;1.104240;0`, EST without DST. */
const histdata: Format = {
  name: 'histdata',
  takesTimeZone: false,
  detect: (line) => /^\d{8} \d{6};/.test(line),
  reader(_first, _clock, series) {
    const dates = new Dates(histdataMidnight);
    const f = new Fields(';');
    return {
      hasHeader: false,
      parse(line) {
        if (f.split(line) !== 6) return `malformed: ${f.count} fields where HistData writes 6`;
        // The stamp `YYYYMMDD HHMMSS` is the line's first 15 characters.
        const ms = line.charCodeAt(15) === 59 && line.charCodeAt(8) === 32 ? dates.midnightAtStart(line, 8) + timeOfDay(line, 9, 11, 13) : Number.NaN;
        return candle(series, Number.isNaN(ms) ? ms : HISTDATA_CLOCK.toUtc(ms), f.micros(1), f.micros(2), f.micros(3), f.micros(4), f.number(5), null);
      },
    };
  },
};

const DUKASCOPY_TIME = /^(\d{2})\.(\d{2})\.(\d{4}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{3}))?$/;

/** Dukascopy's CSV: `Gmt time,Open,High,Low,Close[,Volume]`, times like `02.01.2024 00:00:00.000` in GMT. */
const dukascopy: Format = {
  name: 'dukascopy',
  takesTimeZone: false,
  detect: (line) => /^gmt time[,;]/i.test(line),
  reader(header, _clock, series) {
    const delimiter = header.includes(';') ? ';' : ',';
    const columns = header.split(delimiter).length;
    if (columns !== 5 && columns !== 6) return 'a Dukascopy header is Gmt time,Open,High,Low,Close with or without Volume';
    const f = new Fields(delimiter);
    return {
      hasHeader: true,
      parse(line) {
        if (f.split(line) !== columns) return `malformed: ${f.count} fields where the header names ${columns}`;
        const t = DUKASCOPY_TIME.exec(f.text(0));
        const ms = t ? wall(Number(t[3]), Number(t[2]), Number(t[1]), Number(t[4]), Number(t[5]), Number(t[6]), Number(t[7] ?? 0)) : Number.NaN;
        return candle(series, ms, f.micros(1), f.micros(2), f.micros(3), f.micros(4), columns === 6 ? f.number(5) : 0, null);
      },
    };
  },
};

const CSV_TIME_NAMES = ['time', 'timestamp', 'datetime', 'date', 'gmt time', 'ts'];
const ISO_WALL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?$/;
const ISO_ZONED = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/** An epoch in seconds or milliseconds (13 digits and more), an ISO 8601 time with its offset, or one without, on the wall clock. */
function csvTime(field: string, clock: WallClock): number {
  if (/^\d{1,16}$/.test(field)) {
    const value = Number(field);
    return field.length >= 12 ? value : value * 1000;
  }
  if (ISO_ZONED.test(field)) return Date.parse(field.replace(' ', 'T'));
  const t = ISO_WALL.exec(field);
  if (!t) return Number.NaN;
  const ms = wall(Number(t[1]), Number(t[2]), Number(t[3]), Number(t[4]), Number(t[5]), Number(t[6] ?? 0), Number((t[7] ?? '0').padEnd(3, '0')));
  return Number.isNaN(ms) ? ms : clock.toUtc(ms);
}

/** A plain CSV whose header names time, open, high, low, close and optionally volume and spread (any order, any case). */
const csv: Format = {
  name: 'csv',
  takesTimeZone: true,
  detect: (line) => {
    const names = line
      .toLowerCase()
      .split(/[,;\t]/)
      .map((n) => n.trim());
    return ['open', 'high', 'low', 'close'].every((n) => names.includes(n)) && names.some((n) => CSV_TIME_NAMES.includes(n));
  },
  reader(header, clock, series) {
    const delimiter = header.includes('\t') ? '\t' : header.includes(';') ? ';' : ',';
    const names = header.split(delimiter).map((n) => n.trim().toLowerCase());
    const at = (...choices: string[]) => names.findIndex((n) => choices.includes(n));
    const time = at(...CSV_TIME_NAMES);
    const [open, high, low, close] = [at('open'), at('high'), at('low'), at('close')] as const;
    const volume = at('volume', 'vol', 'tickvol', 'tick_volume');
    const spread = at('spread');
    if ([time, open, high, low, close].some((i) => i === -1)) return 'a CSV header names time (or timestamp), open, high, low and close';
    const f = new Fields(delimiter);
    return {
      hasHeader: true,
      parse(line) {
        if (f.split(line) < names.length) return `malformed: ${f.count} fields where the header names ${names.length}`;
        const spreadText = spread === -1 ? '' : f.text(spread);
        return candle(
          series,
          csvTime(f.text(time).trim(), clock),
          f.micros(open),
          f.micros(high),
          f.micros(low),
          f.micros(close),
          volume === -1 ? 0 : f.number(volume),
          spreadText === '' ? null : Number(spreadText),
        );
      },
    };
  },
};

const BY_NAME: Record<FormatName, Format> = { mt5, mt4, histdata, dukascopy, csv };

export function formatNamed(name: FormatName): Format {
  return BY_NAME[name];
}

/** The format whose first line this is, if one's is. */
export function detectFormat(firstLine: string): Format | undefined {
  return [mt5, dukascopy, histdata, mt4, csv].find((f) => f.detect(firstLine));
}
