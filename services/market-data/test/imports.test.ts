import { Readable } from 'node:stream';
import type { App } from '@fxdesk/core';
import { ManualClock } from '@fxdesk/primitives';
import { CANDLE_FILE_FORMATS, type StoredCandleImport } from '@fxdesk/schemas';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FORMATS } from '../src/import/formats.js';
import type { CandleStore } from '../src/store/candle-store.js';
import { allCandles, CANDLES, gzip, histdataFile, memoryCandleStore, mt5File, pricesOf, tempFolder } from './candle-files.js';
import { auth, buildOn, fakeDeps, testConfig } from './helpers.js';

const MAX_IMPORT_BYTES = 64 * 1024;

let store: CandleStore;
let app: App;
let folder: ReturnType<typeof tempFolder>;

beforeEach(async () => {
  store = await memoryCandleStore();
  folder = tempFolder();
  const config = testConfig({ MAX_IMPORT_BYTES: String(MAX_IMPORT_BYTES), DATA_DIR: folder.dir });
  ({ app } = await buildOn(config, { ...fakeDeps(new ManualClock('2024-05-01T00:00:00Z')), candleStore: store }));
  await app.ready();
});

afterEach(async () => {
  await app.close();
  await store.close();
  folder.cleanup();
});

async function upload(file: string | Buffer | Readable, query: Record<string, string>, contentType = 'text/csv') {
  const res = await app.inject({
    method: 'POST',
    url: '/v1/market-data/stored-candles/imports',
    query,
    headers: { ...auth, 'content-type': contentType },
    payload: file,
  });
  return { status: res.statusCode, body: res.json<StoredCandleImport & { code: string; message: string; details?: { path: string; message: string }[] }>() };
}

describe('POST /v1/market-data/stored-candles/imports', () => {
  it('imports an MT5 export on Athens server time as UTC candles, and answers what it read and added', async () => {
    const { status, body } = await upload(mt5File(), { symbol: 'EUR_USD', tz: 'Europe/Athens' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ symbol: 'EUR_USD', timeframe: 'M1', source: 'file', format: 'mt5', time_zone: 'Europe/Athens' });
    expect(body).toMatchObject({ rows_read: 10, imported: 10, already_held: 0, skipped: { malformed: 0, out_of_order: 0, duplicate: 0 }, rejects: [] });
    expect(body.first).toBe('2024-03-29T20:55:00.000Z');
    expect(body.last).toBe('2024-04-01T00:04:00.000Z');
    expect(pricesOf(await allCandles(store))).toEqual(pricesOf(CANDLES));
  });

  it('imports a gzipped HistData file under the source and timeframe given, detected by its bytes', async () => {
    const { status, body } = await upload(gzip(histdataFile()), { symbol: 'EUR_USD', source: 'histdata.com' }, 'application/gzip');
    expect(status).toBe(200);
    expect(body).toMatchObject({ format: 'histdata', time_zone: 'EST (UTC-5, no DST)', source: 'histdata.com', imported: 10 });
    expect(pricesOf(await allCandles(store, { source: 'histdata.com' }))).toEqual(pricesOf(CANDLES));
  });

  it('adds nothing when the same file is uploaded again, and counts its candles as already held', async () => {
    await upload(mt5File(), { symbol: 'EUR_USD', tz: 'Europe/Athens' });
    const { status, body } = await upload(mt5File(), { symbol: 'EUR_USD', tz: 'Europe/Athens' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ rows_read: 10, imported: 0, already_held: 10 });
    expect(await allCandles(store)).toHaveLength(10);
  });

  it('skips and reports by line number the rows that are malformed, out of order or repeated, and imports the rest', async () => {
    const lines = mt5File().split('\r\n');
    const file = [lines[0], lines[1], lines[3], lines[2], lines[3], 'not,a,row', lines[4]].join('\n');
    const { status, body } = await upload(file, { symbol: 'EUR_USD', tz: 'Europe/Athens', format: 'mt5' }, 'text/plain');
    expect(status).toBe(200);
    expect(body).toMatchObject({ rows_read: 6, imported: 3, skipped: { malformed: 1, out_of_order: 1, duplicate: 1 } });
    expect(body.rejects.map((r) => r.line)).toEqual([4, 5, 6]);
    expect(body.rejects[0]?.reason).toMatch(/^out of order/);
  });

  it('refuses a file of no valid row with 422 invalid_import, its rejects by line in details, and adds nothing', async () => {
    const file = `${CANDLES.map((c) => `${new Date(c.time).toISOString()},1.1,1.0,1.2,1.1`).join('\n')}\n`;
    const { status, body } = await upload(`time,open,high,low,close\n${file}`, { symbol: 'EUR_USD' });
    expect(status).toBe(422);
    expect(body.code).toBe('invalid_import');
    expect(body.message).toMatch(/no valid row \(10 rows read/);
    expect(body.details?.[0]).toEqual({ path: 'line 2', message: expect.stringMatching(/^malformed/) as string });
    expect(body.details).toHaveLength(10);
    expect(await allCandles(store)).toEqual([]);
  });

  it('refuses 422 invalid_import a file of no known format, a tz with HistData, a .gz cut short, and an empty body', async () => {
    const cut = gzip(histdataFile());
    const cases = [
      await upload('hello\nworld\n', { symbol: 'EUR_USD' }),
      await upload(histdataFile(), { symbol: 'EUR_USD', tz: '+2' }),
      await upload(cut.subarray(0, cut.length - 12), { symbol: 'EUR_USD' }, 'application/octet-stream'),
      await upload('', { symbol: 'EUR_USD' }),
    ];
    expect(cases.map((c) => [c.status, c.body.code])).toEqual(Array(4).fill([422, 'invalid_import']));
    expect(cases[1]?.body.message).toMatch(/EST without DST: --tz does not apply/);
    expect(await allCandles(store)).toEqual([]);
  });

  it('refuses a bad query with 422 validation_error before reading the file', async () => {
    const { status, body } = await upload(mt5File(), { symbol: 'EUR_USD', format: 'mt6', timeframe: 'M2' });
    expect(status).toBe(422);
    expect(body.code).toBe('validation_error');
    expect(body.details?.map((d) => d.path)).toEqual(['querystring.format', 'querystring.timeframe']);
  });

  it('refuses a file larger than MAX_IMPORT_BYTES with 413, by its Content-Length or as it streams, and adds nothing', async () => {
    const big = mt5File(Array.from({ length: 2000 }, (_, i) => ({ ...(CANDLES[0] as (typeof CANDLES)[0]), time: CANDLES[0]!.time - i * 60_000 })).reverse());
    expect(big.length).toBeGreaterThan(MAX_IMPORT_BYTES);
    const declared = await upload(big, { symbol: 'EUR_USD', tz: 'Europe/Athens' });
    const streamed = await upload(Readable.from([big.slice(0, 40_000), big.slice(40_000)]), { symbol: 'EUR_USD', tz: 'Europe/Athens' });
    for (const answer of [declared, streamed]) {
      expect(answer.status).toBe(413);
      expect(answer.body.code).toBe('payload_too_large');
    }
    expect(await allCandles(store)).toEqual([]);
  });

  it('refuses a body of another media type with 415', async () => {
    const { status, body } = await upload(JSON.stringify({ file: 'x' }), { symbol: 'EUR_USD' }, 'application/json');
    expect(status).toBe(415);
    expect(body.code).toBe('unsupported_media_type');
  });

  it('offers the importer’s formats in its query', () => {
    expect([...CANDLE_FILE_FORMATS]).toEqual([...FORMATS]);
  });
});
