import type {
  Backtest,
  BacktestCandlesQuery,
  BacktestEquity,
  BacktestList,
  BacktestListQuery,
  BacktestTrades,
  BacktestTradesQuery,
  PairCandles,
  Sweep,
  SweepList,
  SweepListQuery,
  SweepResult,
} from '@fxdesk/schemas';
import { downstreamFailure, errors } from '../errors.js';
import { backtestCandles } from './chart.js';
import type { LabConfig, LabDeps } from './jobs.js';
import type { Catalog } from './plan.js';
import { historyOf } from './sources.js';
import type { StoredSweep } from './store.js';
import { metricValue, rankOrder } from './sweep.js';

/**
 * What the lab answers about its jobs, from the store (any replica's jobs alike): a backtest with
 * its trades, equity and chart, a sweep with its ranking, and the lists; 404 for an id it does
 * not hold.
 */
export class LabReads {
  constructor(private readonly options: { config: Pick<LabConfig, 'CHART_CANDLES' | 'SYMBOL_MAP'>; lab: LabDeps }) {}

  async backtest(id: string): Promise<Backtest> {
    const backtest = await this.options.lab.store.backtest(id);
    if (!backtest) throw errors.create('backtest_not_found', `no backtest ${id}`);
    return backtest;
  }

  async backtests(query: BacktestListQuery): Promise<BacktestList> {
    const page = await this.options.lab.store.backtests({ limit: query.limit, before: cursorOf(query.cursor), sweepId: query.sweep_id });
    return { backtests: page.items, next_cursor: page.next === null ? null : String(page.next) };
  }

  async trades(id: string, query: BacktestTradesQuery): Promise<BacktestTrades> {
    await this.backtest(id);
    const page = await this.options.lab.store.trades(id, { limit: query.limit, after: cursorOf(query.cursor), instrument: query.instrument });
    return { trades: page.items, next_cursor: page.next === null ? null : String(page.next) };
  }

  /** Most candles {@link candles} answers (CHART_CANDLES). */
  get chartCandles(): number {
    return this.options.config.CHART_CANDLES;
  }

  /** One pair's candles of a backtest with the indicators on its rules, for a chart (lab/chart.ts). */
  async candles(id: string, query: BacktestCandlesQuery): Promise<PairCandles> {
    const { config, lab } = this.options;
    const backtest = await this.backtest(id);
    // The history it ran on; one this lab cannot read (a source another replica had) charts on the desk's market.
    const history = historyOf(lab, backtest.settings.source ?? lab.history.source) ?? lab.history;
    return backtestCandles(backtest, query, { history, catalog: () => this.catalog(), symbolMap: config.SYMBOL_MAP });
  }

  async equity(id: string): Promise<BacktestEquity> {
    const points = await this.options.lab.store.equity(id);
    if (points === undefined) throw errors.create('backtest_not_found', `no backtest ${id}`);
    return { points };
  }

  async sweep(id: string): Promise<Sweep> {
    const stored = await this.options.lab.store.sweep(id);
    if (!stored) throw errors.create('sweep_not_found', `no sweep ${id}`);
    return { ...stored, results: await this.results(stored) };
  }

  async sweeps(query: SweepListQuery): Promise<SweepList> {
    const page = await this.options.lab.store.sweeps({ limit: query.limit, before: cursorOf(query.cursor) });
    const sweeps = await Promise.all(
      page.items.map(async ({ walk_forward: _, ...stored }) => {
        const [best] = await this.results({ ...stored, walk_forward: null });
        return { ...stored, best: best?.rank === 1 ? best : null };
      }),
    );
    return { sweeps, next_cursor: page.next === null ? null : String(page.next) };
  }

  /** The history's symbols with their digits; a downstream failure (502, 503, 504) when the market-data service cannot give them. */
  async catalog(): Promise<Catalog> {
    try {
      const symbols = await this.options.lab.history.catalog();
      return new Map(symbols.map((s) => [s.symbol, s.digits]));
    } catch (err) {
      throw downstreamFailure(err, 'market-data');
    }
  }

  /** A sweep's ranking: its member backtests, best first by the metric; those not done yet last, unranked. */
  private async results(sweep: StoredSweep): Promise<SweepResult[]> {
    const rankBy = sweep.settings.rank_by;
    const members = (await this.options.lab.store.sweepBacktests(sweep.id)).filter((m) => m.role === 'member');
    const values = members.map(({ backtest }) => (backtest.status === 'done' && backtest.metrics ? metricValue(backtest.metrics.overall, rankBy) : null));
    const done = members.map(({ backtest }) => backtest.status === 'done');
    const order = rankOrder(values, rankBy).sort((a, b) => Number(done[b]) - Number(done[a]));
    let rank = 0;
    return order.map((index) => {
      const { backtest } = members[index] as (typeof members)[number];
      return {
        rank: done[index] ? ++rank : null,
        rules: backtest.settings.rules,
        backtest_id: backtest.id,
        status: backtest.status,
        metric: values[index] ?? null,
      };
    });
  }
}

function cursorOf(cursor: string | undefined): number | undefined {
  return cursor === undefined ? undefined : Number(cursor);
}
