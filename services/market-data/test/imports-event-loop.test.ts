import { openStoreDatabase, type App } from '@fxdesk/core';
import { ManualClock } from '@fxdesk/primitives';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CandleStore, type CandleRow, type SeriesKey } from '../src/store/candle-store.js';
import { CANDLE_SCHEMA } from '../src/store/schema.js';
import { gzip, tempFolder } from './candle-files.js';
import { auth, buildOn, fakeDeps, testConfig } from './helpers.js';

/** Turns of the event loop so far: a chain of setImmediate, each callback one turn. */
class TurnCounter {
  turns = 0;
  private isCounting = true;

  constructor() {
    const turn = () => {
      this.turns++;
      if (this.isCounting) setImmediate(turn);
    };
    setImmediate(turn);
  }

  stop(): void {
    this.isCounting = false;
  }
}

/** A candle store that notes, for each batch of rows an import writes, the turns the event loop had made by then. */
class WatchedStore extends CandleStore {
  readonly turnsAtBatch: number[] = [];
  counter: TurnCounter | undefined;

  override add(key: SeriesKey, rowsOf: (series: number) => AsyncIterable<readonly CandleRow[]> | Iterable<readonly CandleRow[]>) {
    const watched = async function* (this: WatchedStore, series: number) {
      for await (const rows of rowsOf(series)) {
        this.turnsAtBatch.push(this.counter?.turns ?? 0);
        yield rows;
      }
    };
    return super.add(key, (series) => watched.call(this, series));
  }
}

/** `count` HistData M1 rows from Monday 2 January 2023: about 52 bytes each. */
function histdataRows(count: number): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const lines: string[] = [];
  const start = Date.UTC(2023, 0, 2, 0, 0) - 5 * 3_600_000;
  for (let i = 0; i < count; i++) {
    const d = new Date(start + i * 60_000);
    lines.push(
      `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())} ${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}00;1.104270;1.104290;1.104190;1.104240;0`,
    );
  }
  return `${lines.join('\n')}\n`;
}

let store: WatchedStore;
let app: App;
let folder: ReturnType<typeof tempFolder>;

beforeEach(async () => {
  store = new WatchedStore(await openStoreDatabase({ databaseUrl: undefined, file: ':memory:', schema: CANDLE_SCHEMA }));
  folder = tempFolder();
  ({ app } = await buildOn(testConfig({ DATA_DIR: folder.dir }), { ...fakeDeps(new ManualClock('2024-05-01T00:00:00Z')), candleStore: store }));
  await app.ready();
});

afterEach(async () => {
  await app.close();
  await store.close();
  folder.cleanup();
});

describe('an upload of a large file', () => {
  // 200,000 rows: 10 MB of text, which the importer reads a megabyte (a batch of rows) at a time.
  const text = histdataRows(200_000);

  for (const [name, body] of [
    ['as text', Buffer.from(text)],
    ['gzipped', gzip(text)],
  ] as const) {
    it(`lets the event loop turn between every two batches of rows it imports (${name})`, async () => {
      const counter = new TurnCounter();
      store.counter = counter;
      const res = await app.inject({
        method: 'POST',
        url: '/v1/market-data/stored-candles/imports?symbol=EUR_USD',
        headers: { ...auth, 'content-type': 'application/octet-stream' },
        payload: body,
      });
      counter.stop();
      expect(res.statusCode).toBe(200);
      expect(res.json<{ imported: number }>().imported).toBe(200_000);
      const batches = store.turnsAtBatch;
      expect(batches.length).toBeGreaterThanOrEqual(9);
      // Each batch saw more turns than the one before: the loop turned between every two.
      const turnsBetween = batches.slice(1).map((turns, i) => turns - (batches[i] as number));
      expect(Math.min(...turnsBetween), `turns between batches: ${turnsBetween.join(' ')}`).toBeGreaterThan(0);
    }, 120_000);
  }
});
