import { SimulatedMarket } from '@fxdesk/broker';
import { ManualClock } from '@fxdesk/primitives';
import type { JournalTrade, StrategySignal } from '@fxdesk/schemas';
import { describe, expect, it } from 'vitest';
import { FILLS, simulatedCandles } from './lab-fixtures.js';
import { deskBacktest, recordedSource } from './recorded-desk.js';
import { harness, testConfig } from './helpers.js';

const MINUTE = 60_000;
const WARMUP = 300;
const CLOSES = 1500;
const INSTRUMENTS = ['EUR_USD', 'USD_JPY', 'GBP_USD'];
/** Monday 2026-01-05 00:00 UTC: the recording starts here, the live run WARMUP minutes later. */
const RECORDED_FROM = Date.UTC(2026, 0, 5);

const key = (instrument: string, type: string, candleTime: string, entry: number, stop: number, target: number, confluence: number) =>
  `${instrument} ${type} ${candleTime} entry ${entry} stop ${stop} target ${target} confluence ${confluence}`;

describe('one decision path', () => {
  it('a live engine over a recorded candle sequence and a backtest over the same candles give the same signals', async () => {
    // M1, MIN_CONFLUENCE 1, three pairs; 300 candles of warm-up, then 1 500 closes one at a time.
    const market = new SimulatedMarket({ seed: 'parity', tickIntervalMs: 1000, marketHours: false, clock: new ManualClock(0) });
    const pairs = INSTRUMENTS.map((i) => simulatedCandles(market, i, 'M1', RECORDED_FROM, RECORDED_FROM + (WARMUP + CLOSES) * MINUTE));
    const startMs = RECORDED_FROM + WARMUP * MINUTE;
    const clock = new ManualClock(startMs);
    const env = { TIMEFRAME: 'M1', MIN_CONFLUENCE: '1', WARMUP_CANDLES: String(WARMUP), INSTRUMENTS: INSTRUMENTS.join(','), SIM_MARKET_HOURS: 'false' };
    const h = await harness({ clock, env, deps: { source: recordedSource(market, pairs, clock) } });
    const live: string[] = [];
    try {
      await h.app.inject({ method: 'POST', url: '/start', payload: { dry_run: true } });
      await h.settle();
      for (let i = 0; i < CLOSES; i++) await h.advance(MINUTE);
      const stored: StrategySignal[] = [];
      for (let before: number | undefined; ;) {
        const page = await h.store.page({ limit: 500, before });
        stored.push(...page.signals);
        if (page.nextBefore === null) break;
        before = page.nextBefore;
      }
      for (const s of stored) live.push(key(s.instrument, s.type, s.candle_time, s.entry_price, s.stop_loss, s.take_profit, s.confluence_score));
    } finally {
      await h.close();
    }

    // The backtest: the same candles; the live engine's first decision is on the candle that
    // closed at its start (the warm-up's last), so the window starts there.
    const lab: string[] = [];
    deskBacktest(testConfig(env), pairs, WARMUP, startMs / 1000 + CLOSES * 60, {
      fills: FILLS,
      onSignal: (instrument, timeSec, d) =>
        lab.push(key(instrument, d.type, new Date(timeSec * 1000).toISOString(), d.entry, d.stopLoss, d.takeProfit, d.confluence)),
    });

    live.sort();
    lab.sort();
    expect(lab).toEqual(live);
    // Several signals on every pair.
    for (const instrument of INSTRUMENTS) expect(live.filter((s) => s.startsWith(instrument)).length).toBeGreaterThan(5);
  }, 60_000);

  it('a paper run of the engine and a backtest over the same recorded candles give the same trades, exits included', async () => {
    // Every exit rule on, the paper account's fill model with slippage and commission; M1 on two
    // pairs whose P/L the lab and the paper account both convert from the pair's own candles.
    const instruments = ['EUR_USD', 'USD_JPY'];
    const market = new SimulatedMarket({ seed: 'parity-paper', tickIntervalMs: 1000, marketHours: false, clock: new ManualClock(0) });
    const pairs = instruments.map((i) => simulatedCandles(market, i, 'M1', RECORDED_FROM, RECORDED_FROM + (WARMUP + CLOSES) * MINUTE));
    const startMs = RECORDED_FROM + WARMUP * MINUTE;
    const clock = new ManualClock(startMs);
    const env = {
      TIMEFRAME: 'M1',
      MIN_CONFLUENCE: '1',
      WARMUP_CANDLES: String(WARMUP),
      INSTRUMENTS: instruments.join(','),
      SIM_MARKET_HOURS: 'false',
      BREAK_EVEN_R: '0.8',
      TRAILING_STOP_ATR: '2.5',
      TRAILING_STOP_R: '1.5',
      TIME_EXIT_CANDLES: '40',
      EXIT_ON_OPPOSITE_SIGNAL: 'true',
      PAPER_SLIPPAGE_POINTS: '2',
      PAPER_COMMISSION_PER_LOT: '7',
    };
    const config = testConfig(env);
    const h = await harness({ clock, env, deps: { source: recordedSource(market, pairs, clock) } });
    const digits = new Map(pairs.map((p) => [p.instrument, p.digits + 1]));
    const paper: string[] = [];
    const journal: string[] = [];
    let stillOpen: string[];
    try {
      await h.app.inject({ method: 'POST', url: '/start', payload: { dry_run: true } });
      await h.settle();
      for (let i = 0; i < CLOSES; i++) await h.advance(MINUTE);
      for (const t of await h.stores.paperTrades.closedPaperTrades()) {
        const d = digits.get(t.instrument)!;
        paper.push(
          trade(
            t.instrument,
            t.side === 1 ? 'LONG' : 'SHORT',
            t.candleTime,
            t.entryTime,
            t.entry.toFixed(d),
            t.exitTime,
            t.exitPrice.toFixed(d),
            t.reason,
            t.pnl,
            t.rMultiple,
          ),
        );
      }
      // The journal holds the same closes, as GET /trades answers them.
      const res = await h.app.inject({ url: '/trades?account=paper&limit=500' });
      for (const t of res.json<{ trades: JournalTrade[] }>().trades) {
        const d = digits.get(t.instrument)!;
        const sec = (iso: string) => Date.parse(iso) / 1000;
        journal.push(
          trade(
            t.instrument,
            t.side,
            sec(t.entry_time),
            t.entry_price.toFixed(d),
            sec(t.exit_time),
            t.exit_price.toFixed(d),
            t.exit_reason,
            t.pnl,
            t.r_multiple ?? 'none',
          ),
        );
      }
      stillOpen = (await h.stores.paperTrades.positions()).filter((p) => p.entryTime !== null).map((p) => `${p.instrument} ${p.entryTime}`);
    } finally {
      await h.close();
    }

    const result = deskBacktest(config, pairs, WARMUP, startMs / 1000 + CLOSES * 60);
    const seconds = (iso: string) => Date.parse(iso) / 1000;
    const closed = result.trades.filter((t) => t.exit_reason !== 'end_of_data');
    const lab = closed.map((t) =>
      trade(
        t.instrument,
        t.side,
        seconds(t.signal_time),
        seconds(t.entry_time),
        t.entry_price.toFixed(digits.get(t.instrument)),
        seconds(t.exit_time),
        t.exit_price.toFixed(digits.get(t.instrument)),
        t.exit_reason,
        t.pnl,
        t.r_multiple,
      ),
    );
    lab.sort();
    paper.sort();
    expect(paper).toEqual(lab);
    // The journal's trades carry no signal time (field 3 of a line).
    expect(journal.sort()).toEqual(
      lab
        .map((line) =>
          line
            .split(' ')
            .filter((_, k) => k !== 2)
            .join(' '),
        )
        .sort(),
    );
    // What the lab closed at the end of its data is what the paper account still holds.
    expect(stillOpen.sort()).toEqual(
      result.trades
        .filter((t) => t.exit_reason === 'end_of_data')
        .map((t) => `${t.instrument} ${seconds(t.entry_time)}`)
        .sort(),
    );
    // Every exit rule shows, on both pairs.
    for (const reason of ['stop', 'break_even', 'trailing', 'time', 'opposite_signal']) expect(closed.some((t) => t.exit_reason === reason)).toBe(true);
    for (const instrument of instruments) expect(closed.filter((t) => t.instrument === instrument).length).toBeGreaterThan(5);
  }, 120_000);
});

const trade = (...fields: Array<string | number>) => fields.join(' ');
