import type { Backtest, ChartCandle, LabTrade } from '@fxdesk/schemas';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, describeError, type Api } from '../api.js';
import { tradeKey, tradesOnChart, tradeWindow } from '../chart/chart-data.js';
import { PairChart } from '../chart/pair-chart.js';
import { useChart } from '../chart/use-chart.js';
import { formatDateTime, pairLabel } from '../format.js';
import { navigate } from '../router.js';
import { routeHref } from '../routes.js';
import { TradesTable } from './trades-table.js';

/** Trades read per call (the API's largest page). */
const TRADES_PAGE = 1000;
/** Bars shown either side of the trade the chart is on. */
const REVEAL_MARGIN_BARS = 60;

type Read<T> = { state: 'loading' } | { state: 'ok'; value: T } | { state: 'error'; message: string; missing: boolean };

/** Every trade of one pair of a backtest, page after page. */
async function allTrades(api: Api, id: string, instrument: string): Promise<LabTrade[]> {
  const trades: LabTrade[] = [];
  let cursor: string | null = null;
  do {
    const page = await api.backtestTrades(id, { instrument, limit: TRADES_PAGE, cursor });
    trades.push(...page.trades);
    cursor = page.next_cursor;
  } while (cursor !== null);
  return trades;
}

function useRead<T>(read: () => Promise<T>, deps: unknown[]): Read<T> {
  const [state, setState] = useState<Read<T>>({ state: 'loading' });
  useEffect(() => {
    let cancelled = false;
    setState({ state: 'loading' });
    read()
      .then((value) => !cancelled && setState({ state: 'ok', value }))
      .catch((err: unknown) => !cancelled && setState({ state: 'error', message: describeError(err), missing: err instanceof ApiError && err.status === 404 }));
    return () => {
      cancelled = true;
    };
  }, deps);
  return state;
}

/** A trade's candles: its window, or without `limit` (the desk's CHART_CANDLES) when the desk charts fewer. */
async function windowCandles(api: Api, id: string, instrument: string, trade: LabTrade | undefined, timeframe: Backtest['settings']['timeframe']) {
  if (!trade) return (await api.backtestCandles(id, { instrument })).candles;
  const window = tradeWindow(trade, timeframe);
  try {
    return (await api.backtestCandles(id, { instrument, ...window })).candles;
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 422)) throw err;
    return (await api.backtestCandles(id, { instrument, from: window.from, to: window.to })).candles;
  }
}

/** Whether the candles hold the trade's entry and exit bars. */
function charts(candles: readonly ChartCandle[] | null, trade: LabTrade | undefined): boolean {
  return candles !== null && trade !== undefined && tradesOnChart([trade], candles).length === 1;
}

/**
 * One pair of a finished backtest: its trades on the Pair page's chart (each trade's entry and
 * exit joined) and in a table. The chart holds the run's own candles around the trade it is on
 * (GET /backtests/{id}/candles: a few hundred, with the indicators on the backtest's rules), the
 * newest trade first; picking a trade, or stepping to the next, reads its window when the chart
 * does not hold it yet.
 */
export function BacktestTrades({ api, backtest, instrument }: { api: Api; backtest: Backtest; instrument: string }) {
  const { id, settings } = backtest;
  const currency = settings.account_currency;
  const trades = useRead(() => allTrades(api, id, instrument), [api, id, instrument]);
  const list = useMemo(() => (trades.state === 'ok' ? trades.value : []), [trades]);
  const [picked, setPicked] = useState<string | null>(null);
  const pickedIndex = picked === null ? -1 : list.findIndex((t) => tradeKey(t) === picked);
  const focusIndex = pickedIndex >= 0 ? pickedIndex : list.length - 1;
  const focus = list[focusIndex];
  const focusKey = focus ? tradeKey(focus) : null;

  const [candles, setCandles] = useState<ChartCandle[] | null>(null);
  const [reading, setReading] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const shown = useRef<ChartCandle[] | null>(null);
  shown.current = candles;

  // The trade's window, unless the chart holds the trade already; the run's newest candles when it has no trade.
  useEffect(() => {
    if (trades.state !== 'ok') return;
    if (charts(shown.current, focus)) {
      setReading(false);
      return;
    }
    let cancelled = false;
    setReading(true);
    setFailure(null);
    windowCandles(api, id, instrument, focus, settings.timeframe)
      .then((answer) => !cancelled && setCandles(answer))
      .catch((err: unknown) => !cancelled && setFailure(describeError(err)))
      .finally(() => !cancelled && setReading(false));
    return () => {
      cancelled = true;
    };
  }, [api, id, instrument, trades.state, focusKey]);

  const drawn = useMemo(() => (candles ? tradesOnChart(list, candles) : []), [list, candles]);
  const ready = candles !== null && candles.length > 0;
  const { container, chart } = useChart((element) => new PairChart(element), ready);
  const revealed = useRef<string | null>(null);
  useEffect(() => {
    if (!candles || !chart.current) return;
    chart.current.show({
      instrument,
      timeframe: settings.timeframe,
      candles,
      signals: [],
      selectedId: null,
      trades: drawn,
      selectedTrade: focusKey,
    });
    if (focus && focusKey !== revealed.current && charts(candles, focus)) {
      revealed.current = focusKey;
      chart.current.reveal(focus.entry_time, focus.exit_time, REVEAL_MARGIN_BARS);
    }
  }, [candles, drawn, focusKey, instrument, settings.timeframe, ready]);

  const pick = (trade: LabTrade) => {
    setPicked(tradeKey(trade));
    container.current?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  };
  const step = (by: number) => {
    const next = list[focusIndex + by];
    if (next) setPicked(tradeKey(next));
  };

  const label = pairLabel(instrument);
  const first = candles?.[0];
  const last = candles?.at(-1);
  const { supertrend_atr_period: period, supertrend_multiplier: multiplier, volume_profile_window: profile } = settings.rules;
  return (
    <section class="panel backtest-trades" aria-labelledby="backtest-trades-title">
      <h2 id="backtest-trades-title">Trades</h2>
      {settings.instruments.length > 1 && (
        <fieldset class="timeframes">
          <legend>Pair</legend>
          {settings.instruments.map((i) => (
            <label key={i} class={i === instrument ? 'checked' : ''}>
              <input
                type="radio"
                name="backtest-pair"
                value={i}
                checked={i === instrument}
                onChange={() => navigate(routeHref({ page: 'backtest', id, instrument: i }), true)}
              />
              {pairLabel(i)}
            </label>
          ))}
        </fieldset>
      )}

      <figure class="chart-figure" aria-labelledby="trades-chart-caption">
        {candles === null && reading && (
          <p class="loading" role="status">
            Reading {label} {settings.timeframe} candles…
          </p>
        )}
        {failure && (
          <p class="error" role="alert">
            The chart cannot be read: {failure}.
          </p>
        )}
        {candles !== null && candles.length === 0 && <p class="empty">No {label} candle in the backtest's window.</p>}
        <div ref={container} class="chart" role="img" aria-label={`${label} ${settings.timeframe} chart with the backtest's trades`} hidden={!ready} />
        {ready && first && last && trades.state === 'ok' && (
          <figcaption
            id="trades-chart-caption"
            class="legend"
            data-trades-on-chart={drawn.length}
            data-focus={focusKey ?? ''}
            data-from={first.time}
            data-to={last.time}
          >
            {drawn.length} of {list.length} {label} trades on the chart, whose {candles.length} {settings.timeframe} candles run from{' '}
            {formatDateTime(first.time)} to {formatDateTime(last.time)} with the indicators on the backtest's rules (Supertrend {period} × {multiplier}, volume
            profile of {profile}). Pick a trade in the table, or step through them, to chart its candles. Entry ▲▼ and exit ● joined, green for a gain, red for
            a loss.
          </figcaption>
        )}
        {list.length > 1 && (
          <div class="trade-steps">
            <button type="button" class="secondary" disabled={focusIndex <= 0} onClick={() => step(-1)}>
              ◀ Older trade
            </button>
            <span class="muted num" role="status">
              Trade {focusIndex + 1} of {list.length}
              {reading ? ', reading its candles…' : ''}
            </span>
            <button type="button" class="secondary" disabled={focusIndex >= list.length - 1} onClick={() => step(1)}>
              Newer trade ▶
            </button>
          </div>
        )}
      </figure>

      {trades.state === 'loading' && (
        <p class="loading" role="status">
          Reading the trades…
        </p>
      )}
      {trades.state === 'error' && (
        <p class="error" role="alert">
          The trades cannot be read: {trades.message}.
        </p>
      )}
      {trades.state === 'ok' && list.length === 0 && <p class="empty">No {label} trade: the rule gave no signal that could be traded.</p>}
      {trades.state === 'ok' && list.length > 0 && (
        <TradesTable trades={list} currency={currency} timeframe={settings.timeframe} selectedKey={focusKey} onPick={pick} />
      )}
    </section>
  );
}
