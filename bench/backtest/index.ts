/**
 * Backtest throughput: candles per second of the strategy lab's runner (lab/backtest.ts: the four
 * indicators through PairTracker.push, the signal rule, the fill model and the metrics) over one
 * year of M5 on EUR_USD, GBP_USD, USD_JPY and AUD_USD from the simulated market (seed 'bench'),
 * sized by risk (1 %, riskLots on the simulated terminal's volume terms), with the exit rules off,
 * with all of them on (@fxdesk/trading: break-even, both trailing stops, the time exit, the
 * opposite signal), and with every exit and every limit on (RiskBook: open trades, currency
 * exposure, daily loss and drawdown halts, a cooldown; issue 24), beside the four indicators alone
 * over the same candles (the ceiling: what the runner can never beat), in the same run, on one
 * thread. The targets are the run with every exit and every limit on.
 *
 *   npm run bench -- backtest [runs] [sweep runs]        (default 9 and 3)
 *
 * Then the sweep's speed-up on worker threads (sweep.ts: 64 settings over the same year, one
 * worker against all cores, the best of `sweep runs` alternated runs).
 *
 * Loading the candles is timed apart and not counted (nor the collection of its garbage). Each
 * row runs WARMUP_PASSES JIT warm-up passes, then `runs` timed passes interleaved with the other
 * row; the best pass gives the figures and the ratio (a busy machine only slows passes down), the
 * median is printed beside it.
 * Not a test: nothing here fails on a slow machine.
 */
import { cpus } from 'node:os';
import v8 from 'node:v8';
import vm from 'node:vm';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { SimulatedMarket, simulatedSymbolInfo, symbolSpec } from '@fxdesk/broker';
import { FairValueGaps, StochRsi, Supertrend, VolumeProfile } from '@fxdesk/indicators';
import { ManualClock } from '@fxdesk/primitives';
import { benchSweep, sweepReport } from './sweep.js';
import { ratesFromCandles, runBacktest, type BacktestInput, type BacktestPair } from '../../services/strategy/src/lab/backtest.js';
import { candleAt, columnsOf } from '../../services/strategy/src/lab/columns.js';
import { candleOfSimulatedBar } from '../../services/strategy/src/market-source.js';

const INSTRUMENTS = ['EUR_USD', 'GBP_USD', 'USD_JPY', 'AUD_USD'];
const FROM = Date.UTC(2025, 0, 1);
const TO = Date.UTC(2026, 0, 1);
const WARMUP_CANDLES = 300;
const WARMUP_PASSES = 3;
const TARGET_RATE = 1_000_000;
const TARGET_RATIO = 0.5;

export interface BacktestBench {
  candles: number;
  loadSeconds: number;
  backtest: Rate;
  /** The same run with every exit rule on. */
  exits: Rate;
  /** With every exit rule and every limit on. */
  limits: Rate;
  ceiling: Rate;
  /** Of the run with every exit and limit on, to the ceiling. */
  ratio: number;
  trades: number;
  exitTrades: number;
  limitTrades: number;
  /** Signals the limits skipped in that run, by reason (those with a count). */
  limitSkips: Record<string, number>;
}

/** Every exit rule on: break-even at 1 R, trailing 3 ATRs and 1.5 R behind, out after a day of M5, reversed by an opposite signal. */
const ALL_EXITS = { breakEvenR: 1, trailingStopAtr: 3, trailingStopR: 1.5, timeExitCandles: 288, exitOnOppositeSignal: 1 };

/**
 * Every limit on: three open trades, 40 lots net per currency (1 % at risk on an M5 stop is some 10
 * to 40 lots), a cooldown of half a day of M5 after three losses in a row, a 25 % daily loss and a
 * 95 % drawdown halt, checked at every mark. A halt holds for the rest of the run (its candles still
 * go through the indicators, the rule and every mark; its signals are refused at once). The rule
 * loses about half an R a trade on this simulated year at these fills (−0.52 R with every exit on,
 * the equity near 0 by the end), so the drawdown halt comes during the year; at 5 % a day the first
 * morning (seven stops of 1 % in five hours) halts it.
 */
const ALL_LIMITS = {
  maxOpenTrades: 3,
  maxCurrencyExposureLots: 40,
  dailyLossLimitPercent: 25,
  maxDrawdownPercent: 95,
  cooldownLosses: 3,
  cooldownCandles: 144,
};

interface Rate {
  best: number;
  median: number;
}

/** A year of M5 on the four pairs, with WARMUP_CANDLES before the year. */
export function loadCandles(): BacktestPair[] {
  const market = new SimulatedMarket({ seed: 'bench', tickIntervalMs: 1000, marketHours: true, clock: new ManualClock(TO) });
  return INSTRUMENTS.map((instrument) => {
    const symbol = instrument.replace('_', '');
    const digits = market.spec(symbol)!.digits;
    const warmup = market.bars(symbol, 'M5', WARMUP_CANDLES, FROM).filter((b) => b.closed);
    const candles = [...warmup, ...market.barsBetween(symbol, 'M5', FROM, TO)].map((b) => candleOfSimulatedBar(b, digits));
    return { instrument, symbol, digits, candles: columnsOf(candles) };
  });
}

/** The simulated terminal's volume terms of the pairs (lab/symbol-terms.ts reads them so without EXECUTION_URL). */
function termsOf(pairs: BacktestPair[]): BacktestInput['terms'] {
  return Object.fromEntries(
    pairs.map((p) => {
      const info = simulatedSymbolInfo(symbolSpec(p.symbol)!, 'full');
      return [p.instrument, { contractSize: info.contractSize, volumeMin: info.volumeMin, volumeMax: info.volumeMax, volumeStep: info.volumeStep }];
    }),
  );
}

function backtestInput(pairs: BacktestPair[], extra: Partial<typeof ALL_EXITS & typeof ALL_LIMITS> = {}): BacktestInput {
  return {
    timeframe: 'M5',
    pairs,
    rules: {
      supertrendAtrPeriod: 10,
      supertrendMultiplier: 3,
      volumeProfileWindow: 100,
      minConfluence: 3,
      riskReward: 2,
      minStopAtr: 0.5,
      fvgMaxAge: 100,
      riskPercent: 1,
      ...extra,
    },
    terms: termsOf(pairs),
    fills: { spread_points: null, slippage_points: 2, commission_per_lot: 7, volume: { lots: 1 } },
    initialBalance: 100_000,
    // PAPER_LEVERAGE's default, as the service runs a backtest: each entry's margin is checked against the free margin.
    leverage: 30,
    accountCurrency: 'USD',
    fromSec: FROM / 1000,
    toSec: TO / 1000,
    rates: ratesFromCandles(pairs, 'USD'),
  };
}

let sink = 0;

/**
 * The four indicators alone over every pair's candles, as PairTracker runs them (its defaults):
 * each candle advanced, the values read in place, the volume profile's computed only when read
 * (the tracker's rule reads it on the few candles with a trigger, so it is not read here).
 */
function indicatorsAlone(pairs: BacktestPair[]): number {
  let acc = 0;
  for (const pair of pairs) {
    const st = new Supertrend({ atrPeriod: 10, multiplier: 3 });
    const srsi = new StochRsi();
    const fvg = new FairValueGaps({ maxAge: 100 });
    const vp = new VolumeProfile({ window: 100 });
    // Each candle read from the columns into one object, as the runner feeds the tracker.
    const c = candleAt(pair.candles, 0);
    for (let i = 0; i < pair.candles.length; i++) {
      candleAt(pair.candles, i, c);
      if (st.advance(c)) acc += st.current!.value;
      if (srsi.advance(c)) acc += srsi.current!.k;
      if (fvg.advance(c)) acc += fvg.current!.openCount;
      if (vp.advance(c)) acc += 1;
    }
  }
  return acc;
}

/**
 * A full garbage collection: loading leaves hundreds of megabytes of the simulated market's
 * garbage, whose collection would otherwise fall into the first timed passes.
 */
function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

function rateOf(samples: number[]): Rate {
  const sorted = [...samples].sort((a, b) => a - b);
  return { best: sorted[sorted.length - 1]!, median: sorted[Math.floor(sorted.length / 2)]! };
}

const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');

/** Loads, measures and prints; answers the figures (for a bench that composes this one). */
export async function main(options: { runs?: number; print?: (line: string) => void } = {}): Promise<BacktestBench> {
  const runs = options.runs ?? 9;
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const t0 = performance.now();
  const pairs = loadCandles();
  const loadSeconds = (performance.now() - t0) / 1000;
  collectGarbage();
  const candles = pairs.reduce((n, p) => n + p.candles.length, 0);
  print(
    `Loaded ${fmt(candles)} M5 candles (${INSTRUMENTS.join(', ')}; 2025 plus ${WARMUP_CANDLES} of warm-up each) from the simulated market (seed 'bench') in ${loadSeconds.toFixed(2)} s (not counted below).`,
  );
  print(
    `Node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'}; one thread; best and median of ${runs} interleaved timed passes after ${WARMUP_PASSES} warm-up passes.\n`,
  );

  // The JIT settles over the first passes (a new run's objects meet the field types the earlier
  // ones left): warm-up passes before the timed ones.
  let trades = 0;
  let exitTrades = 0;
  let limitTrades = 0;
  let limitSkips: Record<string, number> = {};
  const limited = () => {
    const result = runBacktest(backtestInput(pairs, { ...ALL_EXITS, ...ALL_LIMITS }));
    limitTrades = result.trades.length;
    limitSkips = Object.fromEntries(Object.entries(result.metrics.skipped?.overall ?? {}).filter(([, n]) => n > 0));
  };
  for (let w = 0; w < WARMUP_PASSES; w++) {
    trades = runBacktest(backtestInput(pairs)).trades.length;
    exitTrades = runBacktest(backtestInput(pairs, ALL_EXITS)).trades.length;
    limited();
    sink += indicatorsAlone(pairs);
  }
  const full: number[] = [];
  const withExits: number[] = [];
  const withLimits: number[] = [];
  const alone: number[] = [];
  const timed = (run: () => void): number => {
    const t = performance.now();
    run();
    return candles / ((performance.now() - t) / 1000);
  };
  for (let r = 0; r < runs; r++) {
    full.push(timed(() => (trades = runBacktest(backtestInput(pairs)).trades.length)));
    withExits.push(timed(() => (exitTrades = runBacktest(backtestInput(pairs, ALL_EXITS)).trades.length)));
    withLimits.push(timed(limited));
    alone.push(timed(() => (sink += indicatorsAlone(pairs))));
  }
  const backtest = rateOf(full);
  const exits = rateOf(withExits);
  const limits = rateOf(withLimits);
  const ceiling = rateOf(alone);
  const ratio = limits.best / ceiling.best;
  const skipped = Object.entries(limitSkips)
    .map(([reason, n]) => `${fmt(n)} ${reason}`)
    .join(', ');
  const percent = (rate: Rate) => `${((rate.best / ceiling.best) * 100).toFixed(1)} %`;
  print(
    `full backtest, sized by 1 % risk (indicators, rule, fills, metrics): ${fmt(backtest.best)} candles/s (median ${fmt(backtest.median)}); ${fmt(trades)} trades`,
  );
  print(
    `the same with every exit rule on:                                   ${fmt(exits.best)} candles/s (median ${fmt(exits.median)}); ${fmt(exitTrades)} trades`,
  );
  print(
    `the same with every exit rule and every limit on:                   ${fmt(limits.best)} candles/s (median ${fmt(limits.median)}); ${fmt(limitTrades)} trades; skipped ${skipped || 'none'}`,
  );
  print(`four indicators alone (the ceiling):                                ${fmt(ceiling.best)} candles/s (median ${fmt(ceiling.median)})`);
  print(
    `ratio backtest / ceiling:                                           ${percent(backtest)} (exits off), ${percent(exits)} (exits on), ${percent(limits)} (exits and limits on)`,
  );
  print('');
  print(
    `with every exit and limit on: target ≥ ${fmt(TARGET_RATE)} candles/s: ${limits.best >= TARGET_RATE ? 'met' : 'NOT met'}; target ≥ ${TARGET_RATIO * 100} % of the ceiling: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'}`,
  );
  print(`(checksum ${sink.toExponential(6)})`);
  return { candles, loadSeconds, backtest, exits, limits, ceiling, ratio, trades, exitTrades, limitTrades, limitSkips };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main({ runs: process.argv[2] ? Number(process.argv[2]) : undefined });
  process.stdout.write('\n');
  const sweep = await benchSweep({ runs: process.argv[3] ? Number(process.argv[3]) : 3, log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${sweepReport(sweep)}\n`);
}
