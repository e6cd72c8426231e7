import type { Timeframe } from '@fxdesk/schemas';
import type { CandleRow, CandleStore } from '../store/candle-store.js';
import { timeframeMs } from '../store/resample.js';
import { detectFormat, FORMATS, formatNamed, HISTDATA_CLOCK, type Format, type FormatName, type RowReader } from './formats.js';
import { readLines } from './read-lines.js';
import { parseTimeZone, UTC, type WallClock } from './time-zone.js';

export interface ImportOptions {
  file: string;
  symbol: string;
  /** Where the candles came from, part of their key (default `file`). */
  source?: string;
  /** The timeframe the file holds (default M1). */
  timeframe?: Timeframe;
  /** Overrides the detection. */
  format?: FormatName;
  /** `--tz`: the server's zone of MT5, MT4 and zone-less CSV times (default UTC); HistData and Dukascopy take none. */
  timeZone?: string;
  /** Rejected rows kept in the report with their reason, at most (default 20); all are counted. */
  maxRejects?: number;
}

/** A row left out, by its line number in the file. */
export interface Reject {
  line: number;
  reason: string;
}

export interface ImportReport {
  format: FormatName;
  /** How the file's times were read into UTC. */
  timeZone: string;
  /** Data rows read (the header and empty lines aside). */
  rowsRead: number;
  /** Candles the store did not hold yet, now added. */
  imported: number;
  /** Well-formed candles the store already held (a re-import). */
  alreadyHeld: number;
  skipped: { malformed: number; outOfOrder: number; duplicate: number };
  /** The first `maxRejects` rows skipped. */
  rejects: Reject[];
  /** Start of the first and last candle read, UTC epoch ms (null: none). */
  firstMs: number | null;
  lastMs: number | null;
}

/** A file that cannot be imported at all: unknown format, a header that does not read, a --tz that does not apply. */
export class ImportError extends Error {}

/**
 * Imports a file of candles into the store as UTC candles of `symbol`: its format detected from
 * its first line (or given), its rows streamed, a malformed row, one out of time order or one
 * repeating the time before it skipped and reported by line number. In one transaction: the file
 * is committed whole, or not at all when reading it fails (the report is then not given).
 */
export async function importFile(store: CandleStore, options: ImportOptions): Promise<ImportReport> {
  const timeframe = options.timeframe ?? 'M1';
  const parsing = new FileParsing(options, timeframe);
  const { added } = await store.add({ source: options.source ?? 'file', symbol: options.symbol, timeframe }, (series) => parsing.rows(series));
  const report = parsing.report();
  return { ...report, imported: added, alreadyHeld: parsing.accepted - added };
}

/** Reads a file's rows into candles, keeping the report as it goes. */
class FileParsing {
  accepted = 0;
  private format: Format | undefined;
  private clock: WallClock = UTC;
  private rowsRead = 0;
  private readonly skipped = { malformed: 0, outOfOrder: 0, duplicate: 0 };
  private readonly rejects: Reject[] = [];
  private firstMs: number | null = null;
  private lastMs: number | null = null;
  private readonly maxRejects: number;
  /** Bars shorter than an hour must start on a multiple of their length in UTC (longer ones follow the server's day). */
  private readonly alignMs: number | undefined;
  private readonly serverClock: WallClock | undefined;

  constructor(
    private readonly options: ImportOptions,
    timeframe: Timeframe,
  ) {
    this.maxRejects = options.maxRejects ?? 20;
    const length = timeframeMs(timeframe);
    this.alignMs = length < 3_600_000 ? length : undefined;
    try {
      this.serverClock = options.timeZone === undefined ? undefined : parseTimeZone(options.timeZone);
    } catch (err) {
      throw new ImportError((err as Error).message);
    }
  }

  report(): Omit<ImportReport, 'imported' | 'alreadyHeld'> {
    return {
      format: (this.format as Format).name,
      timeZone: this.clock.name,
      rowsRead: this.rowsRead,
      skipped: { ...this.skipped },
      rejects: [...this.rejects],
      firstMs: this.firstMs,
      lastMs: this.lastMs,
    };
  }

  async *rows(series: number): AsyncGenerator<CandleRow[]> {
    let reader: RowReader | undefined;
    let lastMs = Number.NEGATIVE_INFINITY;
    for await (const { firstLine, lines } of readLines(this.options.file)) {
      const batch: CandleRow[] = [];
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i] as string;
        if (line.length === 0 || (line.length < 3 && line.trim().length === 0)) continue;
        if (reader === undefined) {
          reader = this.open(line, series);
          if (reader.hasHeader) continue;
        }
        this.rowsRead++;
        const row = reader.parse(line);
        const lineNumber = firstLine + i;
        if (typeof row === 'string') {
          this.reject(lineNumber, 'malformed', row);
        } else if (this.alignMs !== undefined && row.time % this.alignMs !== 0) {
          this.reject(lineNumber, 'malformed', `malformed: ${iso(row.time)} is not the start of a ${this.options.timeframe ?? 'M1'} bar`);
        } else if (row.time < lastMs) {
          this.reject(lineNumber, 'outOfOrder', `out of order: ${iso(row.time)} after ${iso(lastMs)}`);
        } else if (row.time === lastMs) {
          this.reject(lineNumber, 'duplicate', `duplicate: ${iso(row.time)} again`);
        } else {
          lastMs = row.time;
          this.firstMs ??= row.time;
          this.lastMs = row.time;
          batch.push(row);
        }
      }
      this.accepted += batch.length;
      if (batch.length > 0) yield batch;
    }
    if (reader === undefined) this.open('', series);
  }

  /** The reader of the file whose first line is `line`, the format and its clock settled. */
  private open(line: string, series: number): RowReader {
    const format = this.options.format ? formatNamed(this.options.format) : detectFormat(line);
    if (format === undefined) {
      throw new ImportError(`the format of the first line is none of ${FORMATS.join(', ')}: give --format (${JSON.stringify(line.slice(0, 80))})`);
    }
    this.format = format;
    if (!format.takesTimeZone) {
      if (this.options.timeZone !== undefined)
        throw new ImportError(`${format.name} times are ${format.name === 'histdata' ? 'EST without DST' : 'GMT'}: --tz does not apply`);
      this.clock = format.name === 'histdata' ? HISTDATA_CLOCK : UTC;
    } else if (this.serverClock !== undefined) {
      this.clock = this.serverClock;
    }
    const reader = format.reader(line, this.clock, series);
    if (typeof reader === 'string') throw new ImportError(`not a ${format.name} file: ${reader}`);
    return reader;
  }

  private reject(line: number, kind: keyof ImportReport['skipped'], reason: string): void {
    this.skipped[kind]++;
    if (this.rejects.length < this.maxRejects) this.rejects.push({ line, reason });
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
