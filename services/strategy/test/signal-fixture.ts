import type { StrategySignal } from '@fxdesk/schemas';

/** A stored signal as the engine makes one: a dry_run LONG on EUR_USD, fields overridden by `over`. */
export function signalFixture(over: Partial<StrategySignal> = {}): StrategySignal {
  return {
    type: 'LONG',
    generated_at: '2026-01-05T12:00:01.000Z',
    entry_price: 1.1,
    stop_loss: 1.099,
    take_profit: 1.102,
    risk_reward: 2,
    indicators: {
      supertrend: { direction: 1, trend: 'bullish' },
      stochrsi: { k: 30, signal: 'bullish_cross' },
      fvg: { type: 'none', zone: null },
      volume_profile: { poc: 1.1, vah: 1.101, val: 1.099 },
    },
    confluence_score: 2,
    signal_id: '9b2f3c59-4b7d-5a61-8e0c-1d2e3f4a5b6c',
    instrument: 'EUR_USD',
    symbol: 'EURUSD',
    timeframe: 'M5',
    candle_time: '2026-01-05T11:55:00.000Z',
    dry_run: true,
    execution: { status: 'paper', code: null, message: null, tickets: null, attempts: 0, updated_at: null },
    notification: { status: 'not_configured', request_id: null, delivery_ids: [], message: null, attempts: 0, updated_at: null },
    ...over,
  };
}
