import type { Backtest, ChartCandle, LabTrade } from '@fxdesk/schemas';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, describeError, type Api } from '../api.js';
import { tradeKey, tradesOnChart } from '../chart/chart-data.js';
import { PairChart } from '../chart/pair-chart.js';
import { useChart } from '../chart/use-chart.js';
import { formatDateTime, pairLabel } from '../format.js';
import { navigate } from '../router.js';
import { routeHref } from '../routes.js';
import { TradesTable } from './trades-table.js';

/** Trades read per call (the API's largest page). */
const TRADES_PAGE = 1000;
/** Candles asked for, largest first: a desk's CHART_CANDLES bounds the answer (422 above it; 500 by default). */
const CANDLE_LIMITS = [5000, 500, undefined];
/** Bars shown either side of the newest trade when a pair's chart opens, so its trades read at a glance. */
const OPENING_MARGIN_BARS = 120;

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

/** The pair's newest candles on the backtest's timeframe, as many as the desk charts. */
async function chartCandles(api: Api, instrument: string, timeframe: Backtest['settings']['timeframe']): Promise<ChartCandle[]> {
  for (const limit of CANDLE_LIMITS) {
    try {
      return (await api.pairCandles(instrument, { timeframe, limit })).candles;
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 422) || limit === undefined) throw err;
    }
  }
  return [];
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

/**
 * One pair of a finished backtest: its trades on the pair's chart (the Pair page's chart, with
 * each trade's entry and exit joined) and in a table. The chart holds the pair's newest candles
 * from the live market, so the trades of that span are drawn; older ones are in the table.
 */
export function BacktestTrades({ api, backtest, instrument }: { api: Api; backtest: Backtest; instrument: string }) {
  const { id, settings } = backtest;
  const currency = settings.account_currency;
  const trades = useRead(() => allTrades(api, id, instrument), [api, id, instrument]);
  const candles = useRead(() => chartCandles(api, instrument, settings.timeframe), [api, instrument, settings.timeframe]);
  const [selected, setSelected] = useState<string | null>(null);
  const opened = useRef<string | null>(null);

  const drawn = useMemo(() => (trades.state === 'ok' && candles.state === 'ok' ? tradesOnChart(trades.value, candles.value) : []), [trades, candles]);
  const onChart = useMemo(() => new Set(drawn.map(tradeKey)), [drawn]);
  const ready = candles.state === 'ok' && candles.value.length > 0;
  const { container, chart } = useChart((element) => new PairChart(element), ready);
  useEffect(() => {
    if (candles.state !== 'ok' || !chart.current) return;
    chart.current.show({
      instrument,
      timeframe: settings.timeframe,
      candles: candles.value,
      signals: [],
      selectedId: null,
      trades: drawn,
      selectedTrade: selected,
    });
    const newest = drawn.at(-1);
    if (newest && opened.current !== instrument) {
      opened.current = instrument;
      chart.current.reveal(newest.entry_time, newest.exit_time, OPENING_MARGIN_BARS);
    }
  }, [candles, drawn, selected, instrument, settings.timeframe, ready]);

  const pick = (trade: LabTrade) => {
    setSelected(tradeKey(trade));
    chart.current?.reveal(trade.entry_time, trade.exit_time);
    container.current?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  };

  const label = pairLabel(instrument);
  const first = candles.state === 'ok' ? candles.value[0] : undefined;
  const last = candles.state === 'ok' ? candles.value.at(-1) : undefined;
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
        {candles.state === 'loading' && (
          <p class="loading" role="status">
            Reading {label} {settings.timeframe} candles…
          </p>
        )}
        {candles.state === 'error' && (
          <p class={candles.missing ? 'empty' : 'error'} role={candles.missing ? undefined : 'alert'}>
            {candles.missing
              ? `${label} is not a monitored pair: the console charts the monitored pairs only.`
              : `The chart cannot be read: ${candles.message}.`}
          </p>
        )}
        <div ref={container} class="chart" role="img" aria-label={`${label} ${settings.timeframe} chart with the backtest's trades`} hidden={!ready} />
        {ready && first && last && trades.state === 'ok' && (
          <figcaption id="trades-chart-caption" class="legend" data-trades-on-chart={drawn.length}>
            {drawn.length} of {trades.value.length} {label} trades on the chart, whose {candles.state === 'ok' ? candles.value.length : 0} {settings.timeframe}{' '}
            candles run from {formatDateTime(first.time)} to {formatDateTime(last.time)} (the market's, with the strategy's live indicators); the others are in
            the table. Entry ▲▼ and exit ● joined, green for a gain, red for a loss.
          </figcaption>
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
      {trades.state === 'ok' && trades.value.length === 0 && <p class="empty">No {label} trade: the rule gave no signal that could be traded.</p>}
      {trades.state === 'ok' && trades.value.length > 0 && (
        <TradesTable trades={trades.value} currency={currency} selectedKey={selected} onChart={onChart} onPick={pick} />
      )}
    </section>
  );
}
