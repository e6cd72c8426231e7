import { ManualClock } from '@fxdesk/primitives';
import type { StrategySignal } from '@fxdesk/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { contractSize, PaperAccount } from '../src/paper-account.js';
import { openStrategyStores, type StrategyStores } from '../src/store/index.js';
import { signalFixture } from './signal-fixture.js';

const opened: StrategyStores[] = [];
afterEach(() => Promise.all(opened.splice(0).map((s) => s.close())));

async function account(rates: Record<string, number> = {}) {
  const stores = await openStrategyStores();
  opened.push(stores);
  const paper = new PaperAccount({
    trades: stores.paperTrades,
    clock: new ManualClock(),
    startBalance: 100_000,
    leverage: 30,
    volumeLots: 0.1,
    rate: (from, to) => rates[`${from}${to}`],
    events: { statusChanged: () => {} },
  });
  // A dry_run signal opens its trade as the engine stores it: with the signal, in one write.
  const open = (s: StrategySignal) => stores.signals.insert(s, paper.tradeOf(s));
  return { trades: stores.paperTrades, paper, open };
}

const candle = (time: string, low: number, high: number) => ({
  time: Date.parse(time) / 1000,
  open: (low + high) / 2,
  high,
  low,
  close: (low + high) / 2,
  volume: 10,
});

describe('the paper account', () => {
  it('opens TRADE_VOLUME lots per signal: 10 000 units of EUR at 0.10 lot, margin at the leverage', async () => {
    const { paper, open } = await account();
    await open(signalFixture({}));
    // 10 000 × 1.1 USD / 30.
    expect(await paper.snapshot(() => 1.1)).toEqual({ balance: 100_000, equity: 100_000, margin_used: 366.67, margin_available: 99_633.33 });
  });

  it('marks an open trade to the current price', async () => {
    const { paper, open } = await account();
    await open(signalFixture({}));
    expect((await paper.snapshot(() => 1.1005)).equity).toBe(100_005);
  });

  it('closes a LONG at its take profit when a later candle reaches it, realizing the gain', async () => {
    const { paper, open } = await account();
    await open(signalFixture({}));
    await paper.onCandles('EUR_USD', [candle('2026-01-05T12:00:00Z', 1.0995, 1.1021)]);
    expect(await paper.snapshot(() => 1.1)).toEqual({ balance: 100_020, equity: 100_020, margin_used: 0, margin_available: 100_020 });
  });

  it('assumes the stop first when one candle reaches both the stop and the target', async () => {
    const { paper, open } = await account();
    await open(signalFixture({}));
    await paper.onCandles('EUR_USD', [candle('2026-01-05T12:00:00Z', 1.098, 1.103)]);
    expect((await paper.snapshot(() => 1.1)).balance).toBe(99_990);
  });

  it('leaves the trade open on the candle it came from and on candles that reach neither level', async () => {
    const { paper, trades, open } = await account();
    await open(signalFixture({}));
    await paper.onCandles('EUR_USD', [candle('2026-01-05T11:55:00Z', 1.098, 1.103), candle('2026-01-05T12:00:00Z', 1.0995, 1.1015)]);
    expect(await trades.openPaperTrades()).toHaveLength(1);
  });

  it('converts a JPY-quoted result to USD at the exit price', async () => {
    const { paper, open } = await account();
    await open(signalFixture({ instrument: 'USD_JPY', symbol: 'USDJPY', type: 'SHORT', entry_price: 150, stop_loss: 150.5, take_profit: 149 }));
    await paper.onCandles('USD_JPY', [candle('2026-01-05T12:00:00Z', 148.9, 149.8)]);
    // 10 000 × (150 − 149) JPY = 10 000 JPY at 149 JPY per USD.
    expect((await paper.snapshot(() => null)).balance).toBe(100_067.11);
  });

  it('converts a cross through the quote currency rate when the market knows it', async () => {
    const { paper, open } = await account({ GBPUSD: 1.25 });
    await open(signalFixture({ instrument: 'EUR_GBP', symbol: 'EURGBP', entry_price: 0.85, stop_loss: 0.849, take_profit: 0.852 }));
    await paper.onCandles('EUR_GBP', [candle('2026-01-05T12:00:00Z', 0.8495, 0.8525)]);
    // 10 000 × 0.002 GBP = 20 GBP = 25 USD.
    expect((await paper.snapshot(() => null)).balance).toBe(100_025);
  });

  it('sizes a lot of gold at 100 ounces and a lot of a currency at 100 000 units', () => {
    expect(contractSize('XAU_USD')).toBe(100);
    expect(contractSize('EUR_USD')).toBe(100_000);
  });
});
