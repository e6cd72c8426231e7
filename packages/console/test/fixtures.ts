import type {
  ChartCandle,
  ConsoleServices,
  DownstreamState,
  EquityPoint,
  LabRules,
  LabTrade,
  PairRecord,
  ServiceHealth,
  StrategySignal,
  StrategyStatus,
  SweepResult,
} from '@fxdesk/schemas';

/** Records as the strategy service sends them, typed by the contract; each test overrides what it is about. */

export const NOW = Date.parse('2026-01-07T12:33:20Z'); // a Wednesday

export function downstream(state: DownstreamState['state'] = 'ok', message?: string): DownstreamState {
  return {
    configured: state !== 'not_configured',
    state,
    last_success_at: '2026-01-07T12:33:00.000Z',
    last_error: message ? { at: '2026-01-07T12:33:10.000Z', code: 'DOWNSTREAM_UNAVAILABLE', message } : null,
    consecutive_failures: state === 'failing' ? 1 : 0,
  };
}

export function status(overrides: Partial<StrategyStatus> = {}): StrategyStatus {
  const account = { balance: 100_000, equity: 100_000, margin_used: 0, margin_available: 100_000 };
  return {
    running: true,
    started_at: '2026-01-07T12:00:00.000Z',
    active_pairs: ['EUR_USD', 'USD_JPY'],
    total_signals_today: 0,
    last_signal_time: null,
    account,
    account_source: 'paper',
    paper_account: account,
    dry_run: false,
    idle: null,
    timeframe: 'M5',
    downstream: { market_data: downstream(), execution: downstream(), account: downstream(), notification: downstream() },
    ...overrides,
  };
}

export function pair(instrument: string, overrides: Partial<PairRecord> = {}): PairRecord {
  return {
    instrument,
    symbol: instrument.replace('_', ''),
    status: 'monitoring',
    current_price: 1.1,
    supertrend: { direction: 1, value: 1.095 },
    stochrsi: { k: 40, d: 35 },
    last_signal: null,
    last_candle_time: '2026-01-07T12:25:00.000Z',
    last_data_at: '2026-01-07T12:33:19.000Z',
    ...overrides,
  };
}

export function signal(overrides: Partial<StrategySignal> = {}): StrategySignal {
  return {
    type: 'LONG',
    generated_at: '2026-01-07T12:30:01.000Z',
    entry_price: 1.1,
    stop_loss: 1.098,
    take_profit: 1.104,
    risk_reward: 2,
    indicators: {
      supertrend: { direction: 1, trend: 'bullish' },
      stochrsi: { k: 25, signal: 'bullish_cross' },
      fvg: { type: 'none', zone: null },
      volume_profile: { poc: 1.099, vah: 1.101, val: 1.097 },
    },
    confluence_score: 3,
    signal_id: '6f1c1a52-9c1e-5d3f-8a57-0d5c7e1b2a11',
    instrument: 'EUR_USD',
    symbol: 'EURUSD',
    timeframe: 'M5',
    candle_time: '2026-01-07T12:25:00.000Z',
    dry_run: false,
    execution: { status: 'pending', code: null, message: null, tickets: null, attempts: 0, updated_at: null },
    notification: { status: 'pending', request_id: null, delivery_ids: [], message: null, attempts: 0, updated_at: null },
    ...overrides,
  };
}

/** A closed candle at `time`, its indicators warmed up. */
export function candle(time: string, overrides: Partial<ChartCandle> = {}): ChartCandle {
  return {
    time,
    open: 1.1,
    high: 1.102,
    low: 1.099,
    close: 1.101,
    volume: 120,
    supertrend: { direction: 1, value: 1.097 },
    stochrsi: { k: 50, d: 45, signal: 'neutral' },
    fvg: { type: 'none', zone: null },
    volume_profile: { poc: 1.1, vah: 1.101, val: 1.099 },
    ...overrides,
  };
}

export function health(overrides: Partial<ServiceHealth> = {}): ServiceHealth {
  return { configured: true, reachable: true, ready: true, checks: { database: { ok: true, detail: 'ok' } }, error: null, ...overrides };
}

export function services(overrides: Partial<ConsoleServices> = {}): ConsoleServices {
  return { market_data: health(), execution: health(), account: health(), notification: health(), ...overrides };
}

/** The strategy's default rule settings, as a backtest's settings carry them. */
export const LIVE_RULES: LabRules = {
  supertrend_atr_period: 10,
  supertrend_multiplier: 3,
  volume_profile_window: 100,
  min_confluence: 3,
  risk_reward: 2,
  min_stop_atr: 0.5,
  fvg_max_age: 100,
};

/** A trade of a backtest: a LONG that reached its target. */
export function trade(overrides: Partial<LabTrade> = {}): LabTrade {
  return {
    instrument: 'EUR_USD',
    side: 'LONG',
    signal_time: '2026-01-07T12:00:00.000Z',
    entry_time: '2026-01-07T12:05:00.000Z',
    entry_price: 1.1,
    exit_time: '2026-01-07T12:25:00.000Z',
    exit_price: 1.104,
    exit_reason: 'target',
    volume_lots: 0.1,
    pnl: 40,
    r_multiple: 2,
    duration_seconds: 1200,
    commission: 0,
    ...overrides,
  };
}

/** One setting of a sweep, done, with its rank-by metric. */
export function sweepResult(rules: Partial<LabRules>, metric: number | null, overrides: Partial<SweepResult> = {}): SweepResult {
  const all = { ...LIVE_RULES, ...rules };
  return {
    rank: null,
    rules: all,
    backtest_id: `bt-${Object.values(all).join('-')}`,
    status: 'done',
    metric,
    ...overrides,
  };
}

export function equityPoint(time: string, equity: number, drawdownPercent = 0): EquityPoint {
  return { time, equity, drawdown: 0, drawdown_percent: drawdownPercent };
}
