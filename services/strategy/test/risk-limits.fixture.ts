/*
 * Issue 24's "each limit has a test that it refuses in live (simulated terminal), in paper and in
 * the lab": the limits, each on its own, and the desk they run on. risk-limits.test.ts holds the
 * paper account to the lab, risk-limits-live.test.ts a live run through the execution service to
 * the simulated terminal (two files, so they run side by side).
 */

export const MINUTE = 60_000;
export const WARMUP = 300;
export const CLOSES = 1200;
export const FROM = Date.UTC(2026, 0, 5);
export const THREE = ['EUR_USD', 'GBP_USD', 'USD_JPY'];
export const CODES = [
  'max_open_trades',
  'currency_exposure',
  'cooldown',
  'daily_loss_limit',
  'max_drawdown',
  'volume_rounds_to_zero',
  'volume_below_minimum',
] as const;

export const LIMITS: Array<{ code: (typeof CODES)[number]; instruments: string[]; env: Record<string, string> }> = [
  { code: 'max_open_trades', instruments: THREE, env: { MAX_OPEN_TRADES: '1' } },
  // A long EUR_USD and a long GBP_USD are 2 lots short of USD.
  { code: 'currency_exposure', instruments: THREE, env: { MAX_CURRENCY_EXPOSURE_LOTS: '1.5' } },
  { code: 'cooldown', instruments: ['EUR_USD'], env: { COOLDOWN_LOSSES: '2', COOLDOWN_CANDLES: '30' } },
  { code: 'daily_loss_limit', instruments: ['EUR_USD'], env: { DAILY_LOSS_LIMIT: '0.5' } },
  { code: 'max_drawdown', instruments: ['EUR_USD'], env: { MAX_DRAWDOWN: '0.7' } },
];

export const baseEnv = (instruments: string[]) => ({
  TIMEFRAME: 'M1',
  MIN_CONFLUENCE: '1',
  WARMUP_CANDLES: String(WARMUP),
  INSTRUMENTS: instruments.join(','),
  SIM_MARKET_HOURS: 'false',
  TRADE_VOLUME: '1.00',
  TIME_EXIT_CANDLES: '30',
  PAPER_SLIPPAGE_POINTS: '0',
  PAPER_COMMISSION_PER_LOT: '0',
  LIVE_JOURNAL_SYNC_SECONDS: '3600',
});
