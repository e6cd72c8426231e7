import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importFile } from '../src/import/importer.js';
import { rowOf, type CandleStore, type SeriesKey } from '../src/store/candle-store.js';
import type { StoredCandle } from '../src/store/resample.js';
import { allCandles, CANDLES, gzip, mt5File, tempFolder } from './candle-files.js';

const MINUTE = 60_000;
const KEY: SeriesKey = { source: 'file', symbol: 'EUR_USD', timeframe: 'M1' };

function minutes(count: number, startMs = Date.UTC(2024, 0, 9, 10)): StoredCandle[] {
  return Array.from({ length: count }, (_, i) => ({
    time: startMs + i * MINUTE,
    open: 1.104271,
    high: 1.10431,
    low: 1.0999,
    close: 1.1,
    volume: i,
    spread: i % 2 ? null : 1.5,
  }));
}

/** The contract every engine's candle store keeps: run on SQLite (candle-store.test.ts) and PostgreSQL (postgres-store.process.test.ts). */
export function candleStoreContract(engine: string, open: () => Promise<CandleStore>): void {
  describe(`the candle store on ${engine}`, () => {
    let store: CandleStore;
    const add = (candles: StoredCandle[], key = KEY) => store.add(key, (series) => [candles.map((c) => rowOf(series, c))]);

    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    it('reads back the candles it was given, prices to six decimals, spreads and volumes as given', async () => {
      await add(minutes(3));
      expect(await allCandles(store)).toEqual(minutes(3));
    });

    it('adds only the candles it does not hold: the same range again adds nothing', async () => {
      expect(await add(minutes(5))).toEqual({ added: 5 });
      expect(await add(minutes(8))).toEqual({ added: 3 });
      expect(await allCandles(store)).toEqual(minutes(8));
    });

    it('commits a write whole or not at all: a failure after the first batches leaves nothing of it', async () => {
      await add(minutes(2));
      const failing = store.add(KEY, function* (series) {
        yield minutes(10, Date.UTC(2024, 0, 10)).map((c) => rowOf(series, c));
        throw new Error('the file broke off');
      });
      await expect(failing).rejects.toThrow('the file broke off');
      expect(await allCandles(store)).toEqual(minutes(2));
      expect(await store.seriesId({ ...KEY, source: 'never' })).toBeUndefined();
    });

    it('reads a range in [from, to), oldest first, a page at a time', async () => {
      await add(minutes(25));
      const pages: number[] = [];
      const seen: StoredCandle[] = [];
      const id = (await store.seriesId(KEY)) as number;
      for await (const page of store.read(id, Date.UTC(2024, 0, 9, 10, 2), Date.UTC(2024, 0, 9, 10, 22), 7)) {
        pages.push(page.length);
        seen.push(...page);
      }
      expect(pages).toEqual([7, 7, 6]);
      expect(seen).toEqual(minutes(25).slice(2, 22));
    });

    it('keeps a series per source, symbol and timeframe, and lists their ranges', async () => {
      await add(minutes(3));
      await add(minutes(2), { ...KEY, source: 'dukascopy' });
      await add(minutes(1), { ...KEY, timeframe: 'H1' });
      const ranges = (await store.ranges()).map(({ source, symbol, timeframe, candles, firstMs, lastMs }) => ({
        source,
        symbol,
        timeframe,
        candles,
        firstMs,
        lastMs,
      }));
      const start = Date.UTC(2024, 0, 9, 10);
      expect(ranges).toEqual([
        { source: 'file', symbol: 'EUR_USD', timeframe: 'H1', candles: 1, firstMs: start, lastMs: start },
        { source: 'dukascopy', symbol: 'EUR_USD', timeframe: 'M1', candles: 2, firstMs: start, lastMs: start + MINUTE },
        { source: 'file', symbol: 'EUR_USD', timeframe: 'M1', candles: 3, firstMs: start, lastMs: start + 2 * MINUTE },
      ]);
      expect(await store.sources('EUR_USD')).toEqual(['dukascopy', 'file']);
    });

    it('finds the steps between consecutive candles longer than asked', async () => {
      const candles = minutes(10);
      await add([...candles.slice(0, 3), ...candles.slice(7)]);
      const id = (await store.seriesId(KEY)) as number;
      const start = Date.UTC(2024, 0, 9, 10);
      expect(await store.steps(id, 2 * MINUTE)).toEqual([{ fromMs: start + 2 * MINUTE, toMs: start + 7 * MINUTE }]);
    });

    it('finds the steps of a range read a span at a time, those across the spans included, and its bounds', async () => {
      const DAY = 86_400_000;
      const start = Date.UTC(2024, 0, 1);
      // A candle a day for 100 days, less days 29 to 33 (across the first span's end) and 60 (inside the second span).
      const days = Array.from({ length: 100 }, (_, i) => i).filter((i) => (i < 29 || i > 33) && i !== 60);
      await add(days.map((i) => ({ ...(minutes(1)[0] as StoredCandle), time: start + i * DAY })));
      const id = (await store.seriesId(KEY)) as number;
      expect(await store.steps(id, DAY)).toEqual([
        { fromMs: start + 28 * DAY, toMs: start + 34 * DAY },
        { fromMs: start + 59 * DAY, toMs: start + 61 * DAY },
      ]);
      expect(await store.steps(id, DAY, start + 40 * DAY, start + 90 * DAY)).toEqual([{ fromMs: start + 59 * DAY, toMs: start + 61 * DAY }]);
      expect(await store.bounds(id)).toEqual({ firstMs: start, lastMs: start + 99 * DAY });
      expect(await store.bounds(id, start + 29 * DAY, start + 34 * DAY)).toBeUndefined();
      await add(minutes(1), { ...KEY, symbol: 'AUD_USD', timeframe: 'H1' });
      const aud = (await store.seriesId({ ...KEY, symbol: 'AUD_USD', timeframe: 'H1' })) as number;
      expect(await store.seriesOf('EUR_USD')).toEqual([{ id, ...KEY }]);
      expect(await store.seriesOf()).toEqual([
        { id: aud, ...KEY, symbol: 'AUD_USD', timeframe: 'H1' },
        { id, ...KEY },
      ]);
    });

    it('imports a gzipped MT5 file as one transaction, and again adds nothing', async () => {
      const folder = tempFolder();
      try {
        const file = folder.file('eurusd.csv.gz', gzip(mt5File()));
        expect(await importFile(store, { file, symbol: 'EUR_USD', timeZone: 'Europe/Athens' })).toMatchObject({ imported: 10 });
        expect(await importFile(store, { file, symbol: 'EUR_USD', timeZone: 'Europe/Athens' })).toMatchObject({ imported: 0, alreadyHeld: 10 });
        expect(await allCandles(store)).toEqual(CANDLES);
      } finally {
        folder.cleanup();
      }
    });
  });
}
