import { AppError } from '@fxdesk/core';
import type { LabSource } from '@fxdesk/schemas';
import { downstreamFailure, errors } from '../errors.js';
import { SimulatedMarket } from '@fxdesk/broker';
import type { MarketDataClient } from '@fxdesk/client';
import type { Clock } from '@fxdesk/primitives';
import type { StrategyConfig } from '../config.js';
import { MarketDataLabHistory, SimulatedLabHistory, StoredLabHistory, type LabHistory } from './candles.js';
import type { BacktestPlan } from './plan.js';

/** The histories a lab can read, by source. */
export interface LabHistories {
  /** The desk's own market: the in-process simulated one (`simulated`), or the market-data service's feed (`venue`, MARKET_DATA_URL). */
  history: LabHistory;
  /** The market-data service's candle store (MARKET_DATA_URL). */
  stored?: StoredLabHistory;
  /** The strategy's own simulated market (SIM_SEED) when the desk's market is the venue's. */
  simulated?: LabHistory;
}

/**
 * The histories of the strategy's lab (and of `npm run backtest`, the same): with the market-data
 * service, its feed's history (venue), its candle store (stored) and the strategy's own simulated
 * market of SIM_SEED; without, the desk's simulated market only.
 */
export function labHistoriesOf(
  config: Pick<StrategyConfig, 'SIM_SEED' | 'SIM_TICK_INTERVAL_MS' | 'SIM_MARKET_HOURS'>,
  marketData: MarketDataClient | undefined,
  clock: Clock,
  market?: SimulatedMarket,
): LabHistories {
  const simulated = () =>
    new SimulatedLabHistory(
      market ?? new SimulatedMarket({ seed: config.SIM_SEED, tickIntervalMs: config.SIM_TICK_INTERVAL_MS, marketHours: config.SIM_MARKET_HOURS, clock }),
    );
  if (marketData === undefined) return { history: simulated() };
  return { history: new MarketDataLabHistory(marketData), stored: new StoredLabHistory(marketData), simulated: simulated() };
}

/** The history a source reads, if this lab has it. */
export function historyOf(lab: LabHistories, source: LabSource): LabHistory | undefined {
  if (source === lab.history.source) return lab.history;
  return source === 'stored' ? lab.stored : source === 'simulated' ? lab.simulated : undefined;
}

/** The history a planned job reads: its settings' source (absent before issue 26: the desk's market). */
export function planHistory(lab: LabHistories, plan: BacktestPlan): LabHistory {
  const source = plan.settings.source ?? lab.history.source;
  const history = historyOf(lab, source);
  if (history === undefined) throw new RangeError(`this lab cannot read the ${source} history`);
  return history;
}

/**
 * The source a request runs on. Named: this lab must have it (else 422 SOURCE_UNAVAILABLE).
 * Unnamed: `stored` when the candle store holds any candles of its pairs, else the desk's market.
 * On `stored`, the store must hold the range of every pair, traded and converting, but for
 * gaps of a trading day at most (TOLERATED_MISSING_MINUTES): else 422 CANDLES_NOT_COVERED with
 * a detail per missing range. A market-data service that cannot answer is 502, 503 or 504.
 */
export async function resolveSource(lab: LabHistories, requested: LabSource | undefined, plan: BacktestPlan, path = 'body'): Promise<LabSource> {
  const pairs = [...plan.pairs, ...plan.conversion];
  try {
    const source = requested ?? (lab.stored !== undefined && (await lab.stored.holdsAny(pairs.map((p) => p.symbol))) ? 'stored' : lab.history.source);
    if (historyOf(lab, source) === undefined) {
      const message = `${source} candles are not available here: ${source === 'stored' || source === 'venue' ? 'set MARKET_DATA_URL' : 'the lab has no simulated market'}`;
      throw errors.create('source_unavailable', `${path}.source: ${message}`, { details: [{ path: `${path}.source`, message }] });
    }
    if (source === 'stored') {
      const missing = await (lab.stored as StoredLabHistory).missing(pairs, plan.timeframe, plan.fromSec, plan.toSec);
      if (missing.length > 0) {
        const details = missing.map((m) => ({
          path: `${path}.instruments`,
          message: `${m.instrument}: no candles from ${m.from} to ${m.to} (${m.open_minutes} market minutes)`,
        }));
        const more = missing.length > 1 ? ` (and ${missing.length - 1} more)` : '';
        throw errors.create(
          'candles_not_covered',
          `the candle store does not hold the range: ${details[0]?.message}${more}; import or download it, or name another source`,
          {
            details,
          },
        );
      }
    }
    return source;
  } catch (err) {
    throw err instanceof AppError ? err : downstreamFailure(err, 'market-data');
  }
}
