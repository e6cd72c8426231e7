import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ManualClock } from '@fxdesk/primitives';
import type { StrategySignal } from '@fxdesk/schemas';
import { EXITS_OFF, type ExitRules, type VolumeTerms } from '@fxdesk/trading';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { contractSize, PaperAccount } from '../src/paper-account.js';
import { openStrategyStores, type StrategyStores } from '../src/store/index.js';
import { signalFixture } from './signal-fixture.js';

const opened: StrategyStores[] = [];
afterEach(() => Promise.all(opened.splice(0).map((s) => s.close())));

// The fill model: no spread of the candles' own, the default 10 points (half a pip each side), 2 points of slippage.
async function account(
  options: {
    rates?: Record<string, number>;
    exits?: Partial<ExitRules>;
    file?: string;
    riskPercent?: number;
    terms?: () => Promise<VolumeTerms | null>;
    lots?: number;
  } = {},
) {
  const stores = await openStrategyStores({ file: options.file });
  opened.push(stores);
  const paper = new PaperAccount({
    trades: stores.paperTrades,
    clock: new ManualClock(),
    startBalance: 100_000,
    leverage: 30,
    fills: { spread_points: null, slippage_points: 2, commission_per_lot: 0, volume: { lots: options.lots ?? 0.1 } },
    exits: { ...EXITS_OFF, ...options.exits },
    rate: (from, to) => options.rates?.[`${from}${to}`],
    events: { statusChanged: () => {} },
    signals: stores.signals,
    ...(options.riskPercent === undefined ? {} : { sizing: { riskPercent: options.riskPercent, fixedLots: '0.1' } }),
    terms: options.terms,
  });
  // A dry_run signal opens its trade as the engine stores it: with the signal, in one write.
  const open = async (s: StrategySignal, digits = 5) => {
    const entry = await paper.entryOf(s, digits);
    return stores.signals.insert(s, entry.trade, entry.closes);
  };
  /** Candles through the paper account, as the engine feeds it a pair's closes. */
  const feed = (instrument: string, candles: ReturnType<typeof candle>[], digits = 5) =>
    paper.onCandles(
      instrument,
      digits,
      candles,
      candles.map(() => Number.NaN),
    );
  return { trades: stores.paperTrades, signals: stores.signals, paper, open, feed };
}

/** A candle of mid prices opening at `open`, with no spread of its own. */
const candle = (time: string, open: number, low: number, high: number, close = open) => ({
  time: Date.parse(time) / 1000,
  open,
  high,
  low,
  close,
  volume: 10,
  spread: null,
});

/** The signal fixture's candle is 11:55; the next opens at 12:00. */
const NEXT = '2026-01-05T12:00:00Z';

describe('the paper account', () => {
  it('waits for the next candle: a signal is no position yet', async () => {
    const { paper, open } = await account();
    await open(signalFixture({}));
    expect(await paper.snapshot(() => 1.1)).toEqual({ balance: 100_000, equity: 100_000, margin_used: 0, margin_available: 100_000 });
  });

  it('enters TRADE_VOLUME lots at the next open, at the ask plus the slippage: 10 000 units at 1.10007, margin at the leverage', async () => {
    const { paper, open, feed } = await account();
    await open(signalFixture({}));
    await feed('EUR_USD', [candle(NEXT, 1.1, 1.0998, 1.1002)]);
    // Marked at 1.10007: no gain; margin 10 000 × 1.10007 / 30.
    expect(await paper.snapshot(() => 1.10007)).toEqual({ balance: 100_000, equity: 100_000, margin_used: 366.69, margin_available: 99_633.31 });
  });

  it('skips an entry whose margin at the leverage the free margin cannot hold, recorded as insufficient_margin', async () => {
    const { trades, signals, open, feed } = await account({ lots: 15 });
    await open(signalFixture({}));
    await feed('EUR_USD', [candle(NEXT, 1.1, 1.0998, 1.1002)]);
    // 15 lots at 1.1: 15 × 100 000 × 1.1 / 30 = 55 000 of margin held (at the fill, 1.10007: 55 003.50).
    const gbp = signalFixture({ signal_id: '0c3e4d6a-5b8e-5b72-9f1d-2e3f4a5b6c7d', instrument: 'GBP_USD', symbol: 'GBPUSD' });
    await open(gbp);
    await feed('GBP_USD', [candle(NEXT, 1.1, 1.0998, 1.1002)]);
    // GBP_USD's 15 lots need 55 000 again of the ~44 996 free: skipped, as the lab skips it.
    expect((await trades.positions()).map((p) => p.instrument)).toEqual(['EUR_USD']);
    const skipped = await signals.find(gbp.signal_id);
    expect(skipped?.execution).toMatchObject({ status: 'skipped', code: 'insufficient_margin' });
    expect(skipped?.execution.message).toMatch(/15 lots hold 55000\.00 USD of margin at 30:1; free: 44996\.\d\d/);
  });

  it('sizes by risk on the venue’s terms it reads at the entry: capped at its largest order, skipped when it does not answer', async () => {
    const asked: number[] = [];
    const capped = await account({
      riskPercent: 1,
      terms: async () => (asked.push(1), { contractSize: 100_000, volumeMin: '0.01', volumeMax: '0.30', volumeStep: '0.01' }),
    });
    await capped.open(signalFixture({}));
    await capped.feed('EUR_USD', [candle(NEXT, 1.1, 1.0998, 1.1002)]);
    // 1 % of 100 000 lost over 1.10007 − 1.099 is 9.34 lots; the venue sends at most 0.30.
    expect((await capped.trades.positions('EUR_USD')).map((p) => p.volumeLots)).toEqual([0.3]);
    expect(asked).toEqual([1]);
    const down = await account({ riskPercent: 1, terms: async () => null });
    await down.open(signalFixture({}));
    await down.feed('EUR_USD', [candle(NEXT, 1.1, 1.0998, 1.1002)]);
    expect(await down.trades.openPaperTrades()).toEqual([]);
    expect(await down.trades.positions('EUR_USD')).toEqual([]);
  });

  it('closes a LONG at its take profit when the bid reaches it, realizing the gain from the fill', async () => {
    const { paper, open, feed } = await account();
    await open(signalFixture({}));
    // Bid high 1.10215 − 0.00005 ≥ 1.102: (1.102 − 1.10007) × 10 000 = 19.30.
    await feed('EUR_USD', [candle(NEXT, 1.1, 1.0995, 1.1021)]);
    expect(await paper.snapshot(() => 1.1)).toEqual({ balance: 100_019.3, equity: 100_019.3, margin_used: 0, margin_available: 100_019.3 });
  });

  it('assumes the stop first when one candle reaches both the stop and the target, filled less the slippage', async () => {
    const { paper, open, feed } = await account();
    await open(signalFixture({}));
    // (1.099 − 0.00002 − 1.10007) × 10 000 = −10.90.
    await feed('EUR_USD', [candle(NEXT, 1.1, 1.098, 1.103)]);
    expect((await paper.snapshot(() => 1.1)).balance).toBe(99_989.1);
  });

  it('leaves the trade open on the candle it came from and on candles that reach neither level', async () => {
    const { paper, trades, open, feed } = await account();
    await open(signalFixture({}));
    await feed('EUR_USD', [candle('2026-01-05T11:55:00Z', 1.1, 1.098, 1.103), candle(NEXT, 1.1, 1.0995, 1.1015)]);
    expect(await trades.openPaperTrades()).toHaveLength(1);
    expect((await paper.snapshot(() => 1.1)).balance).toBe(100_000);
  });

  it('holds one position per pair: a signal while one is open waits for the next open, where it is skipped as position_open', async () => {
    const { trades, signals, open, feed } = await account();
    await open(signalFixture({}));
    await feed('EUR_USD', [candle(NEXT, 1.1, 1.0998, 1.1002)]);
    const second = signalFixture({ signal_id: '0f1e2d3c-4b5a-5968-8776-655443322110', candle_time: NEXT, generated_at: '2026-01-05T12:05:01.000Z' });
    expect(await open(second)).toBe(true);
    await feed('EUR_USD', [candle('2026-01-05T12:05:00Z', 1.1, 1.0998, 1.1002)]);
    expect((await trades.openPaperTrades()).map((t) => t.signalId)).toEqual([signalFixture().signal_id]);
    expect((await signals.find(second.signal_id))?.execution).toMatchObject({ status: 'skipped', code: 'position_open' });
  });

  it('enters a signal at an open that gapped through the open position’s target, after the target closed it there', async () => {
    const { trades, open, feed, paper } = await account();
    await open(signalFixture({}));
    await feed('EUR_USD', [candle(NEXT, 1.1, 1.0998, 1.1002)]);
    const second = signalFixture({
      signal_id: '0f1e2d3c-4b5a-5968-8776-655443322110',
      candle_time: NEXT,
      generated_at: '2026-01-05T12:05:01.000Z',
      entry_price: 1.1002,
      stop_loss: 1.101,
      take_profit: 1.105,
    });
    await open(second);
    // The next open's bid 1.10245 is beyond the target 1.102: the target fills there, then the second enters at the ask plus the slippage.
    await feed('EUR_USD', [candle('2026-01-05T12:05:00Z', 1.1025, 1.1024, 1.1026)]);
    expect((await trades.openPaperTrades()).map((t) => [t.signalId, t.entry])).toEqual([[second.signal_id, 1.10257]]);
    // (1.10245 − 1.10007) × 10 000 = 23.80 at the gapped open.
    expect((await paper.snapshot(() => 1.1025)).balance).toBe(100_023.8);
  });

  it('records each exit with its reason: a stop moved to break-even, hit, is break_even', async () => {
    const { trades, open, feed } = await account({ exits: { breakEvenR: 1 } });
    await open(signalFixture({ take_profit: 1.105 }));
    // Entered at 1.10007 (1 R = 0.00107); the close's bid 1.10145 is 1.29 R up: the stop to 1.10007.
    await feed('EUR_USD', [candle(NEXT, 1.1, 1.0998, 1.1016, 1.1015)]);
    await feed('EUR_USD', [candle('2026-01-05T12:05:00Z', 1.1012, 1.0995, 1.1013)]);
    const [closed] = await trades.closedPaperTrades();
    expect(closed).toMatchObject({ reason: 'break_even', entryTime: Date.parse(NEXT) / 1000 });
    // The moved stop 1.10007 less the slippage.
    expect(closed?.exitPrice).toBeCloseTo(1.10005, 10);
  });

  it('converts a JPY-quoted result to USD at the exit candle’s close', async () => {
    const { paper, open, feed } = await account();
    await open(signalFixture({ instrument: 'USD_JPY', symbol: 'USDJPY', type: 'SHORT', entry_price: 150, stop_loss: 150.5, take_profit: 149 }), 3);
    // 3 digits: the spread 0.010, slippage 0.002; sold at 149.993, the target 149 reached by the ask: 10 000 × 0.993 JPY at 149.5.
    await feed('USD_JPY', [candle(NEXT, 150, 148.9, 150.1, 149.5)], 3);
    expect((await paper.snapshot(() => null)).balance).toBe(100_066.42);
  });

  it('converts a cross through the quote currency rate when the market knows it', async () => {
    const { paper, open, feed } = await account({ rates: { GBPUSD: 1.25 } });
    await open(signalFixture({ instrument: 'EUR_GBP', symbol: 'EURGBP', entry_price: 0.85, stop_loss: 0.849, take_profit: 0.852 }));
    // Bought at 0.85007; 10 000 × 0.00193 GBP = 19.30 GBP = 24.12 USD (24.1249… in binary).
    await feed('EUR_GBP', [candle(NEXT, 0.85, 0.8495, 0.8525)]);
    expect((await paper.snapshot(() => null)).balance).toBe(100_024.12);
  });

  it('keeps the balance and an open position’s moved stop across a restart', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paper-'));
    onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'strategy.db');
    const first = await account({ file, exits: { trailingStopR: 1 } });
    await first.open(signalFixture({ take_profit: 1.11 }));
    await first.feed('EUR_USD', [candle(NEXT, 1.1, 1.0998, 1.1031, 1.103)]);
    await opened.shift()!.close();
    // The trail: 1.10295 − 0.00107 = 1.10188; the restarted account takes the stop at it.
    const second = await account({ file, exits: { trailingStopR: 1 } });
    await second.feed('EUR_USD', [candle('2026-01-05T12:05:00Z', 1.102, 1.101, 1.1021)]);
    const [closed] = await second.trades.closedPaperTrades();
    expect(closed?.reason).toBe('trailing');
    expect(closed?.exitPrice).toBeCloseTo(1.10186, 10);
  });

  it('sizes a lot of gold at 100 ounces and a lot of a currency at 100 000 units', () => {
    expect(contractSize('XAU_USD')).toBe(100);
    expect(contractSize('EUR_USD')).toBe(100_000);
  });
});
