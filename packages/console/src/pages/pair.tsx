import type { CandleEvent, ChartCandle, DeliveryEvent, OrderEvent, PairRecord, StrategySignal, Timeframe } from '@fxdesk/schemas';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, describeError } from '../api.js';
import { chartSummary, toTime, withClosedCandle } from '../chart/chart-data.js';
import { PairChart } from '../chart/pair-chart.js';
import { useChart } from '../chart/use-chart.js';
import { ChartLegend } from '../components/chart-legend.js';
import { NoSignal } from '../components/no-signal.js';
import { Trend } from '../components/pairs-grid.js';
import { SignalDetails } from '../components/signal-details.js';
import { SignalTable } from '../components/signal-table.js';
import { formatOscillator, formatPips, formatPrice, humanize, pairLabel } from '../format.js';
import { candleOpen, TIMEFRAME_SECONDS, TIMEFRAMES } from '../market-time.js';
import { Link, navigate } from '../router.js';
import { routeHref } from '../routes.js';
import { useDesk } from '../use-desk.js';
import { usePositions } from '../use-positions.js';

/** Candles asked for; a desk with a smaller CHART_CANDLES is asked for its default instead. */
const CHART_LIMIT = 300;
const MAX_CANDLES = 1000;
const PAIR_SIGNALS = 50;

type Candles = { state: 'loading' } | { state: 'ok'; timeframe: Timeframe; candles: ChartCandle[] } | { state: 'error'; message: string; missing: boolean };

function mergeSignals(into: StrategySignal[], more: StrategySignal[]): StrategySignal[] {
  const byId = new Map(into.map((s) => [s.signal_id, s]));
  for (const s of more) byId.set(s.signal_id, s);
  return [...byId.values()].sort((a, b) => b.generated_at.localeCompare(a.generated_at)).slice(0, PAIR_SIGNALS);
}

interface PairPageProps {
  instrument: string;
  timeframe: Timeframe | null;
  signalId: string | null;
}

/** One pair: its chart with every indicator and signal, live; its signals below. */
export function PairPage({ instrument, timeframe: asked, signalId }: PairPageProps) {
  const { state, api, listen } = useDesk();
  const timeframe = asked ?? state.status?.timeframe ?? 'M5';
  const pair: PairRecord | undefined = state.pairs[instrument];
  const [candles, setCandles] = useState<Candles>({ state: 'loading' });
  const [signals, setSignals] = useState<StrategySignal[]>([]);
  const [reloads, setReloads] = useState(0);
  const latest = useRef(candles);
  latest.current = candles;
  const ready = candles.state === 'ok' && candles.candles.length > 0;
  const { container, chart } = useChart((element) => new PairChart(element), ready);

  // The candles of the pair on the timeframe: read at open, on a switch, and when a bar of another timeframe than the strategy's has closed.
  useEffect(() => {
    let cancelled = false;
    setCandles((c) => (c.state === 'ok' && c.timeframe === timeframe ? c : { state: 'loading' }));
    void (async () => {
      try {
        const res = await api.pairCandles(instrument, { timeframe, limit: CHART_LIMIT }).catch((err: unknown) => {
          if (err instanceof ApiError && err.status === 422) return api.pairCandles(instrument, { timeframe });
          throw err;
        });
        if (!cancelled) setCandles({ state: 'ok', timeframe, candles: res.candles });
      } catch (err) {
        if (!cancelled) setCandles({ state: 'error', message: describeError(err), missing: err instanceof ApiError && err.status === 404 });
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [api, instrument, timeframe, reloads]);

  useEffect(() => {
    let cancelled = false;
    setSignals([]);
    api
      .signals({ instrument, limit: PAIR_SIGNALS })
      .then((history) => !cancelled && setSignals((s) => mergeSignals(s, history.signals)))
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [api, instrument]);

  // Live: closed candles, prices, signals and what became of them.
  useEffect(
    () =>
      listen((name, data) => {
        if (name === 'candle') {
          const event = data as CandleEvent;
          if (event.instrument !== instrument) return;
          const shown = latest.current;
          if (shown.state !== 'ok') return;
          if (event.timeframe === shown.timeframe) {
            setCandles((c) =>
              c.state === 'ok' && c.timeframe === event.timeframe ? { ...c, candles: withClosedCandle(c.candles, event.candle, MAX_CANDLES) } : c,
            );
            return;
          }
          // Another timeframe's candle: read the chart again once a bar of its own has closed since.
          const last = shown.candles.at(-1);
          if (last && candleOpen(Math.floor(Date.now() / 1000), shown.timeframe) > toTime(last.time) + TIMEFRAME_SECONDS[shown.timeframe])
            setReloads((n) => n + 1);
        } else if (name === 'pair') {
          const record = data as PairRecord;
          if (record.instrument === instrument && record.current_price !== null && record.last_data_at) {
            chart.current?.tick(record.current_price, Date.parse(record.last_data_at));
          }
        } else if (name === 'signal') {
          const signal = data as StrategySignal;
          if (signal.instrument === instrument) setSignals((s) => mergeSignals(s, [signal]));
        } else if (name === 'order' || name === 'delivery') {
          const event = data as OrderEvent | DeliveryEvent;
          if (event.instrument !== instrument) return;
          const patch = 'execution' in event ? { execution: event.execution } : { notification: event.notification };
          setSignals((s) => s.map((x) => (x.signal_id === event.signal_id ? { ...x, ...patch } : x)));
        }
      }),
    [listen, instrument],
  );

  // The pair's open positions at the venue, their prices and stops drawn on the chart.
  const { book } = usePositions();
  const positions = useMemo(() => ('positions' in book && pair ? book.positions.filter((p) => p.symbol === pair.symbol) : []), [book, pair?.symbol]);

  useEffect(() => {
    if (candles.state === 'ok' && chart.current)
      chart.current.show({ instrument, timeframe: candles.timeframe, candles: candles.candles, signals, selectedId: signalId, positions });
  }, [candles, signals, signalId, instrument, ready, positions]);

  const summary = useMemo(
    () => (candles.state === 'ok' ? chartSummary(candles.candles, signals, candles.timeframe, signalId) : null),
    [candles, signals, signalId],
  );
  const selected = signals.find((s) => s.signal_id === signalId) ?? null;
  const label = pairLabel(instrument);
  // The header's indicators are the chart's timeframe's: those after its newest closed candle (the
  // strategy serves each timeframe's candles with their indicators); until the chart is read, the
  // pair's live values when the chart is on the strategy's timeframe.
  const isLive = timeframe === state.status?.timeframe;
  const charted = candles.state === 'ok' && candles.timeframe === timeframe ? summary : null;
  const trend = charted ? charted.supertrend?.direction : isLive ? pair?.supertrend?.direction : undefined;
  const stochrsi = charted ? charted.stochrsi : isLive ? (pair?.stochrsi ?? null) : null;
  const profile = charted ? charted.profile : isLive ? (state.profiles[instrument] ?? null) : null;

  return (
    <div class="pair-page">
      <header class="pair-head">
        <p class="crumbs">
          <Link href={routeHref({ page: 'desk' })}>Desk</Link> / {label}
        </p>
        <h1>
          {label} <span class="price num">{formatPrice(pair?.current_price, instrument)}</span>
        </h1>
        <dl class="facts inline" aria-label={`${label} on ${timeframe}`}>
          <div>
            <dt>
              Supertrend <span class="muted">{timeframe}</span>
            </dt>
            <dd>
              <Trend direction={trend} />
            </dd>
          </div>
          <div>
            <dt>
              %K / %D <span class="muted">{timeframe}</span>
            </dt>
            <dd>{stochrsi ? `${formatOscillator(stochrsi.k)} / ${formatOscillator(stochrsi.d)}` : '—'}</dd>
          </div>
          <div>
            <dt>
              To POC <span class="muted">{timeframe}</span>
            </dt>
            <dd>{formatPips(pair?.current_price, profile?.poc, instrument)}</dd>
          </div>
          <div>
            <dt>State</dt>
            <dd>{pair ? humanize(pair.status) : 'not monitored'}</dd>
          </div>
        </dl>
      </header>

      <fieldset class="timeframes">
        <legend>Timeframe</legend>
        {TIMEFRAMES.map((tf) => (
          <label key={tf} class={tf === timeframe ? 'checked' : ''}>
            <input
              type="radio"
              name="timeframe"
              value={tf}
              checked={tf === timeframe}
              onChange={() => navigate(routeHref({ page: 'pair', instrument, timeframe: tf, signalId }), true)}
            />
            {tf}
          </label>
        ))}
      </fieldset>

      <figure class="chart-figure" aria-labelledby="chart-caption">
        {candles.state === 'loading' && (
          <p class="loading" role="status">
            Reading {label} {timeframe} candles…
          </p>
        )}
        {candles.state === 'error' && (
          <p class="error" role="alert">
            {candles.missing ? `${label} is not a monitored pair. ` : `The chart could not be read: ${candles.message}. `}
            <Link href={routeHref({ page: 'desk' })}>Back to the desk</Link>
          </p>
        )}
        {candles.state === 'ok' && candles.candles.length === 0 && <p class="empty">No closed {timeframe} candle yet: the pair is still warming up.</p>}
        <div ref={container} class="chart" role="img" aria-label={`${label} ${timeframe} candlestick chart`} hidden={!ready} />
        {summary && ready && (
          <figcaption id="chart-caption">
            <ChartLegend summary={summary} instrument={instrument} timeframe={candles.state === 'ok' ? candles.timeframe : timeframe} />
          </figcaption>
        )}
      </figure>

      {selected && <SignalDetails signal={selected} />}

      <section class="panel" aria-labelledby="pair-signals-title">
        <h2 id="pair-signals-title">{label} signals</h2>
        {signals.length > 0 ? <SignalTable signals={signals} label={`${label} signals`} hidePair selectedId={signalId} /> : <NoSignal />}
      </section>
    </div>
  );
}
