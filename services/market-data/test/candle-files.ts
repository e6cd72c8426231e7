import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { openStoreDatabase } from '@fxdesk/core';
import { CandleStore } from '../src/store/candle-store.js';
import type { StoredCandle } from '../src/store/resample.js';
import { CANDLE_SCHEMA } from '../src/store/schema.js';

/** A candle store in a private in-memory SQLite database. */
export async function memoryCandleStore(): Promise<CandleStore> {
  return new CandleStore(await openStoreDatabase({ databaseUrl: undefined, file: ':memory:', schema: CANDLE_SCHEMA }));
}

/** A folder of its own for a test's files, removed by `cleanup`. */
export function tempFolder(): { dir: string; file: (name: string, text: string | Buffer) => string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-candles-'));
  return {
    dir,
    file: (name, text) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, text);
      return file;
    },
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

function m1(startMs: number, count: number, firstOpen: number, spread: number): StoredCandle[] {
  return Array.from({ length: count }, (_, i) => {
    const open = Math.round((firstOpen + i * 0.0001) * 1e5) / 1e5;
    const close = Math.round((open + 0.00005) * 1e5) / 1e5;
    return {
      time: startMs + i * MINUTE,
      open,
      high: Math.round((close + 0.0002) * 1e5) / 1e5,
      low: Math.round((open - 0.0001) * 1e5) / 1e5,
      close,
      volume: 10 + i,
      spread,
    };
  });
}

/**
 * The candles every fixture file holds, in UTC: five M1 bars before Friday's close of 29 March
 * 2024 (Athens on EET, UTC+2) and five after Monday's open of 1 April (Athens on EEST, UTC+3, from
 * Sunday 31 March): a server on Athens time writes the two with different offsets.
 */
export const CANDLES: StoredCandle[] = [...m1(Date.UTC(2024, 2, 29, 20, 55), 5, 1.08, 12), ...m1(Date.UTC(2024, 3, 1, 0, 0), 5, 1.079, 15)];

/** Athens' offset at each fixture candle: +2 before 31 March 2024, +3 after. */
const ATHENS_OFFSET_MS = (time: number) => (time < Date.UTC(2024, 2, 31, 1) ? 2 * HOUR : 3 * HOUR);

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The UTC fields of a wall time `ms`. */
function fields(ms: number) {
  const d = new Date(ms);
  return {
    y: d.getUTCFullYear(),
    mo: pad(d.getUTCMonth() + 1),
    d: pad(d.getUTCDate()),
    h: pad(d.getUTCHours()),
    mi: pad(d.getUTCMinutes()),
    s: pad(d.getUTCSeconds()),
  };
}

const price = (n: number) => n.toFixed(5);

/** MT5's "Export bars", tab-separated, on Athens server time. */
export function mt5File(candles = CANDLES, delimiter = '\t'): string {
  const header = ['<DATE>', '<TIME>', '<OPEN>', '<HIGH>', '<LOW>', '<CLOSE>', '<TICKVOL>', '<VOL>', '<SPREAD>'].join(delimiter);
  const rows = candles.map((c) => {
    const t = fields(c.time + ATHENS_OFFSET_MS(c.time));
    return [`${t.y}.${t.mo}.${t.d}`, `${t.h}:${t.mi}:${t.s}`, price(c.open), price(c.high), price(c.low), price(c.close), c.volume, 0, c.spread].join(
      delimiter,
    );
  });
  return `${[header, ...rows].join('\r\n')}\r\n`;
}

/** MT4's history CSV on a server at a fixed UTC+2. */
export function mt4File(candles = CANDLES): string {
  return candles
    .map((c) => {
      const t = fields(c.time + 2 * HOUR);
      return [`${t.y}.${t.mo}.${t.d}`, `${t.h}:${t.mi}`, price(c.open), price(c.high), price(c.low), price(c.close), c.volume].join(',');
    })
    .join('\n');
}

/** HistData.com's generic ASCII M1, EST without DST (UTC−5 even in summer). */
export function histdataFile(candles = CANDLES): string {
  return candles
    .map((c) => {
      const t = fields(c.time - 5 * HOUR);
      return `${t.y}${t.mo}${t.d} ${t.h}${t.mi}${t.s};${[c.open, c.high, c.low, c.close].map((p) => p.toFixed(6)).join(';')};0`;
    })
    .join('\n')
    .concat('\n');
}

/** Dukascopy's CSV in GMT, with or without its Volume column. */
export function dukascopyFile(candles = CANDLES, withVolume = true): string {
  const header = withVolume ? 'Gmt time,Open,High,Low,Close,Volume' : 'Gmt time,Open,High,Low,Close';
  const rows = candles.map((c) => {
    const t = fields(c.time);
    const values = [price(c.open), price(c.high), price(c.low), price(c.close), ...(withVolume ? [c.volume.toFixed(2)] : [])];
    return [`${t.d}.${t.mo}.${t.y} ${t.h}:${t.mi}:${t.s}.000`, ...values].join(',');
  });
  return `${[header, ...rows].join('\n')}\n`;
}

/** A plain CSV with a header; times ISO 8601 in UTC, or epoch seconds. */
export function csvFile(candles = CANDLES, time: 'iso' | 'epoch' = 'iso'): string {
  const rows = candles.map((c) =>
    [time === 'iso' ? new Date(c.time).toISOString() : c.time / 1000, price(c.open), price(c.high), price(c.low), price(c.close), c.volume, c.spread].join(','),
  );
  return `${['time,open,high,low,close,volume,spread', ...rows].join('\n')}\n`;
}

export function gzip(text: string): Buffer {
  return zlib.gzipSync(Buffer.from(text));
}

/** Every candle of a series, oldest first. */
export async function allCandles(store: CandleStore, key: { source?: string; symbol?: string; timeframe?: 'M1' | 'H1' } = {}): Promise<StoredCandle[]> {
  const id = await store.seriesId({ source: key.source ?? 'file', symbol: key.symbol ?? 'EUR_USD', timeframe: key.timeframe ?? 'M1' });
  if (id === undefined) return [];
  const candles: StoredCandle[] = [];
  for await (const page of store.read(id, 0, Number.MAX_SAFE_INTEGER)) candles.push(...page);
  return candles;
}

/** Time and prices: what every format carries. */
export function pricesOf(candles: StoredCandle[]) {
  return candles.map(({ time, open, high, low, close }) => ({ time: new Date(time).toISOString(), open, high, low, close }));
}
