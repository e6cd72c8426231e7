import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ImportError, importFile } from '../src/import/importer.js';
import type { CandleStore } from '../src/store/candle-store.js';
import { allCandles, CANDLES, csvFile, dukascopyFile, gzip, histdataFile, memoryCandleStore, mt4File, mt5File, pricesOf, tempFolder } from './candle-files.js';

let store: CandleStore;
let folder: ReturnType<typeof tempFolder>;

beforeEach(async () => {
  store = await memoryCandleStore();
  folder = tempFolder();
});

afterEach(async () => {
  await store.close();
  folder.cleanup();
});

const symbol = 'EUR_USD';

describe('every format imports to the same UTC candles', () => {
  it('reads MT5 bars on Athens server time across its DST change (UTC+2 on Friday, UTC+3 on Monday)', async () => {
    const report = await importFile(store, { file: folder.file('eurusd.csv', mt5File()), symbol, timeZone: 'Europe/Athens' });
    expect(report).toMatchObject({ format: 'mt5', rowsRead: 10, imported: 10, rejects: [] });
    expect(await allCandles(store)).toEqual(CANDLES);
  });

  it('reads comma-separated MT5 bars on the zone EET', async () => {
    const file = folder.file('eurusd.csv', mt5File(CANDLES, ','));
    await importFile(store, { file, symbol, timeZone: 'EET' });
    expect(await allCandles(store)).toEqual(CANDLES);
  });

  it('reads MT4 history at a fixed server offset', async () => {
    const report = await importFile(store, { file: folder.file('EURUSD1.csv', mt4File()), symbol, timeZone: '+2' });
    expect(report).toMatchObject({ format: 'mt4', imported: 10, timeZone: '+2' });
    expect(await allCandles(store)).toEqual(CANDLES.map((c) => ({ ...c, spread: null })));
  });

  it('reads HistData as EST without DST: UTC−5 in summer too', async () => {
    const report = await importFile(store, { file: folder.file('DAT_ASCII_EURUSD_M1_2024.csv', histdataFile()), symbol });
    expect(report).toMatchObject({ format: 'histdata', imported: 10 });
    expect(pricesOf(await allCandles(store))).toEqual(pricesOf(CANDLES));
  });

  it('refuses --tz for HistData, whose zone is fixed', async () => {
    await expect(importFile(store, { file: folder.file('h.csv', histdataFile()), symbol, timeZone: '+2' })).rejects.toThrow(ImportError);
  });

  it('reads Dukascopy in GMT, with its volume', async () => {
    const report = await importFile(store, { file: folder.file('EURUSD_Candlestick_1_M_BID.csv', dukascopyFile()), symbol });
    expect(report).toMatchObject({ format: 'dukascopy', imported: 10 });
    expect(await allCandles(store)).toEqual(CANDLES.map((c) => ({ ...c, spread: null })));
  });

  it('reads Dukascopy without a volume column', async () => {
    await importFile(store, { file: folder.file('d.csv', dukascopyFile(CANDLES, false)), symbol });
    expect(pricesOf(await allCandles(store))).toEqual(pricesOf(CANDLES));
  });

  it('reads a plain CSV with ISO times and a spread', async () => {
    const report = await importFile(store, { file: folder.file('plain.csv', csvFile()), symbol });
    expect(report).toMatchObject({ format: 'csv', imported: 10 });
    expect(await allCandles(store)).toEqual(CANDLES);
  });

  it('reads a plain CSV with epoch seconds', async () => {
    await importFile(store, { file: folder.file('plain.csv', csvFile(CANDLES, 'epoch')), symbol });
    expect(await allCandles(store)).toEqual(CANDLES);
  });

  it('reads a gzipped file by its bytes, whatever its name', async () => {
    const report = await importFile(store, { file: folder.file('history.txt', gzip(mt5File())), symbol, timeZone: 'Europe/Athens' });
    expect(report).toMatchObject({ format: 'mt5', imported: 10 });
    expect(await allCandles(store)).toEqual(CANDLES);
  });

  it('takes --format over the detection', async () => {
    await expect(importFile(store, { file: folder.file('h.csv', histdataFile()), symbol, format: 'mt4' })).resolves.toMatchObject({
      format: 'mt4',
      imported: 0,
      skipped: { malformed: 10, outOfOrder: 0, duplicate: 0 },
    });
  });

  it('fails on a file that is not there, adding nothing', async () => {
    await expect(importFile(store, { file: `${folder.dir}/missing.csv`, symbol })).rejects.toThrow(/ENOENT/);
    expect(await store.sources(symbol)).toEqual([]);
  });

  it('refuses a file whose first line is no format it knows', async () => {
    await expect(importFile(store, { file: folder.file('x.csv', 'hello,world\n1,2\n'), symbol })).rejects.toThrow(/give --format/);
  });
});

describe('rejects', () => {
  it('skips malformed, out-of-order and duplicated rows and reports each by its line number', async () => {
    const lines = histdataFile().trimEnd().split('\n');
    const file = [
      lines[0], // line 1
      lines[1],
      'garbage', // 3: malformed
      lines[1], // 4: duplicate
      lines[3],
      lines[2], // 6: out of order
      '20240329 155900;1.08;1.07;1.09;1.08;0', // 7: high below low
      lines[4],
    ].join('\n');
    const report = await importFile(store, { file: folder.file('h.csv', file), symbol });
    expect(report.skipped).toEqual({ malformed: 2, outOfOrder: 1, duplicate: 1 });
    expect(report.rejects.map((r) => r.line)).toEqual([3, 4, 6, 7]);
    expect(report.rejects[0]?.reason).toMatch(/^malformed: 1 fields/);
    expect(report.rejects[1]?.reason).toMatch(/^duplicate/);
    expect(report.rejects[2]?.reason).toMatch(/^out of order/);
    expect(report.rejects[3]?.reason).toMatch(/high and low/);
    expect(report.imported).toBe(4);
  });

  it('keeps the first rejects and counts them all', async () => {
    const file = ['20240329 155500;1;1;1;1;0', ...Array.from({ length: 30 }, () => 'x')].join('\n');
    const report = await importFile(store, { file: folder.file('h.csv', file), symbol, maxRejects: 5 });
    expect(report.rejects).toHaveLength(5);
    expect(report.skipped.malformed).toBe(30);
  });

  it('rejects an M1 row off the minute', async () => {
    const report = await importFile(store, { file: folder.file('c.csv', 'time,open,high,low,close\n2024-03-29T20:55:30Z,1,1,1,1\n'), symbol });
    expect(report.rejects).toEqual([{ line: 2, reason: 'malformed: 2024-03-29T20:55:30.000Z is not the start of a M1 bar' }]);
  });
});

describe('an import applies whole or not at all', () => {
  it('adds nothing when the same file is imported again', async () => {
    const file = folder.file('eurusd.csv', csvFile());
    await importFile(store, { file, symbol });
    const again = await importFile(store, { file, symbol });
    expect(again).toMatchObject({ rowsRead: 10, imported: 0, alreadyHeld: 10 });
    expect(await allCandles(store)).toEqual(CANDLES);
  });

  it('adds only the new candles of an overlapping range', async () => {
    await importFile(store, { file: folder.file('a.csv', csvFile(CANDLES.slice(0, 6))), symbol });
    const report = await importFile(store, { file: folder.file('b.csv', csvFile(CANDLES.slice(4))), symbol });
    expect(report).toMatchObject({ imported: 4, alreadyHeld: 2 });
    expect(await allCandles(store)).toEqual(CANDLES);
  });

  it('leaves the store as it was when the file fails halfway (a truncated .gz)', async () => {
    await importFile(store, { file: folder.file('a.csv', csvFile(CANDLES.slice(0, 2))), symbol });
    const rows = Array.from({ length: 200_000 }, (_, i) => `${new Date(Date.UTC(2023, 0, 2) + i * 60_000).toISOString()},1.1,1.2,1.0,1.1,1,1`);
    const whole = gzip(['time,open,high,low,close,volume,spread', ...rows].join('\n'));
    const truncated = folder.file('big.csv.gz', whole.subarray(0, Math.floor(whole.length * 0.8)));
    await expect(importFile(store, { file: truncated, symbol })).rejects.toThrow(/unexpected end of file/);
    expect(await allCandles(store)).toEqual(CANDLES.slice(0, 2));
  });

  it('keeps a series per source', async () => {
    await importFile(store, { file: folder.file('a.csv', csvFile()), symbol, source: 'dukascopy' });
    await importFile(store, { file: folder.file('b.csv', csvFile()), symbol });
    expect(await allCandles(store, { source: 'dukascopy' })).toEqual(CANDLES);
    expect(await allCandles(store)).toEqual(CANDLES);
  });
});
