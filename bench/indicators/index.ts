/**
 * Indicator throughput: candle updates per second of @fxdesk/indicators against the reference
 * library trading-signals (and technicalindicators) computing what they can of the same work,
 * in the same run, on the same generated candles, on one thread.
 *
 *   npx tsx bench/indicators/index.ts [candles]        (default 1,000,000)
 *
 * A "candle update" is one closed candle fed to every indicator of the row. The row "fxdesk: all
 * four" feeds Supertrend (with its ATR), Stochastic RSI, fair value gaps and the volume profile.
 * The references have neither fair value gaps nor a volume profile, so they compute Supertrend +
 * Stochastic RSI (trading-signals) or ATR + Stochastic RSI (technicalindicators, which has no
 * Supertrend); "fxdesk: same as trading-signals" is our like-for-like figure.
 * Each row runs a JIT warm-up pass, then `RUNS` timed passes interleaved with the other rows; the
 * best pass of each row gives the figures and ratios (a busy machine only slows passes down), the
 * median is printed beside it.
 * Not a test: nothing here fails on a slow machine.
 */
import { performance } from 'node:perf_hooks';
import { cpus } from 'node:os';
import { SMA, StochasticRSI as TsStochasticRSI, SuperTrend as TsSuperTrend, WSMA } from 'trading-signals';
import { ATR as TiATR, StochasticRSI as TiStochasticRSI } from 'technicalindicators';
import { FairValueGaps, StochRsi, Supertrend, VolumeProfile, syntheticCandles, type Candle } from '@fxdesk/indicators';

const COUNT = Number(process.argv[2] ?? 1_000_000);
const RUNS = 7;
const WARMUP = Math.min(COUNT, 200_000);
const TARGET = 1_000_000;

interface Row {
  name: string;
  computes: string;
  run: (candles: Candle[], n: number) => number;
}

let sink = 0;

const rows: Row[] = [
  {
    name: 'fxdesk: all four',
    computes: 'Supertrend(10,3) + StochRSI(14,14,3,3) + FVG + VolumeProfile(100 candles, 24 rows)',
    run: (candles, n) => {
      const st = new Supertrend();
      const srsi = new StochRsi();
      const fvg = new FairValueGaps();
      const vp = new VolumeProfile();
      let acc = 0;
      for (let i = 0; i < n; i++) {
        const c = candles[i]!;
        const a = st.update(c);
        const b = srsi.update(c);
        const f = fvg.update(c);
        const v = vp.update(c);
        if (a !== null) acc += a.value;
        if (b !== null) acc += b.k;
        if (f !== null) acc += f.openCount;
        if (v !== null) acc += v.poc;
      }
      return acc;
    },
  },
  {
    name: 'fxdesk: same as trading-signals',
    computes: 'Supertrend(10,3) + StochRSI(14,14,3,3)',
    run: (candles, n) => {
      const st = new Supertrend();
      const srsi = new StochRsi();
      let acc = 0;
      for (let i = 0; i < n; i++) {
        const c = candles[i]!;
        const a = st.update(c);
        const b = srsi.update(c);
        if (a !== null) acc += a.value;
        if (b !== null) acc += b.k;
      }
      return acc;
    },
  },
  {
    name: 'trading-signals 8.3.0',
    computes: 'SuperTrend(10,3) + StochasticRSI(14, %K SMA 3, %D SMA 3)',
    run: (candles, n) => {
      const st = new TsSuperTrend({ interval: 10, multiplier: 3 });
      const srsi = new TsStochasticRSI(14, WSMA, { k: new SMA(3), d: new SMA(3) });
      let acc = 0;
      for (let i = 0; i < n; i++) {
        const c = candles[i]!;
        const a = st.update(c, false);
        const b = srsi.update(c.close, false);
        if (a != null) acc += a.supertrend;
        if (b !== null) acc += b;
      }
      return acc;
    },
  },
  {
    name: 'technicalindicators 3.1.0',
    computes: 'ATR(10) + StochasticRSI(14,14,3,3) via nextValue (no Supertrend in this library)',
    run: (candles, n) => {
      const atr = new TiATR({ period: 10, high: [], low: [], close: [] });
      const srsi = new TiStochasticRSI({ values: [], rsiPeriod: 14, stochasticPeriod: 14, kPeriod: 3, dPeriod: 3 });
      let acc = 0;
      for (let i = 0; i < n; i++) {
        const c = candles[i]!;
        const a = atr.nextValue({ high: c.high, low: c.low, close: c.close });
        const b = srsi.nextValue(c.close as never) as { k: number } | undefined;
        if (a !== undefined) acc += a;
        if (b !== undefined) acc += b.k;
      }
      return acc;
    },
  },
];

interface Rate {
  best: number;
  median: number;
}

/**
 * Candle updates/s of each row over RUNS timed passes, the rows interleaved pass by pass so that
 * a busy neighbour on the machine slows every row alike. The ratios use the best pass of each row
 * (interference only ever slows a pass down); the median is printed beside it.
 */
function measureAll(candles: Candle[]): Rate[] {
  for (const row of rows) sink += row.run(candles, WARMUP);
  const rates: number[][] = rows.map(() => []);
  for (let r = 0; r < RUNS; r++) {
    rows.forEach((row, i) => {
      const t0 = performance.now();
      sink += row.run(candles, COUNT);
      const seconds = (performance.now() - t0) / 1000;
      rates[i]!.push(COUNT / seconds);
    });
  }
  return rates.map((list) => {
    list.sort((x, y) => x - y);
    return { best: list[list.length - 1]!, median: list[Math.floor(list.length / 2)]! };
  });
}

const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');

console.log(`Generating ${fmt(COUNT)} synthetic M5 candles (seed 1)...`);
const candles = syntheticCandles(COUNT, { seed: 1 });
console.log(
  `Node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'}; one thread; best and median of ${RUNS} interleaved timed passes after a warm-up pass.\n`,
);

const rates = measureAll(candles);
const results = rows.map((row, i) => ({ row, rate: rates[i]!.best, median: rates[i]!.median }));
const ours = results[0]!.rate;
const oursSame = results[1]!.rate;
const ref = results[2]!.rate;

const table = results.map(({ row, rate, median }) => ({
  implementation: row.name,
  'candle updates/s (best)': fmt(rate),
  'ns/candle': (1e9 / rate).toFixed(0),
  'vs trading-signals': `${(rate / ref).toFixed(2)}x`,
  'updates/s (median)': fmt(median),
}));
console.table(table);
for (const { row } of results) console.log(`  ${row.name}: ${row.computes}`);

console.log('');
console.log(`fxdesk all four indicators:        ${fmt(ours)} candle updates/s (target ${fmt(TARGET)}): ${ours >= TARGET ? 'met' : 'NOT met'}`);
console.log(`ratio all four / trading-signals:  ${(ours / ref).toFixed(2)}x (${ours > ref ? 'faster' : 'NOT faster'}, while computing two more indicators)`);
console.log(`ratio like-for-like:               ${(oursSame / ref).toFixed(2)}x (Supertrend + StochRSI on both sides)`);
console.log(`(checksum ${sink.toExponential(6)})`);
