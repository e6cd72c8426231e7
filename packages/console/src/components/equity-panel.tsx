import type { Backtest, EquityPoint } from '@fxdesk/schemas';
import { useEffect, useState } from 'preact/hooks';
import { describeError, type Api } from '../api.js';
import { EquityChart } from '../chart/equity-chart.js';
import { useChart } from '../chart/use-chart.js';
import { equitySummary } from '../chart/equity-data.js';
import { formatMoney } from '../format.js';

type Points = { state: 'loading' } | { state: 'ok'; points: EquityPoint[] } | { state: 'error'; message: string };

/** A finished backtest's equity and drawdown curves. */
export function EquityPanel({ api, backtest }: { api: Api; backtest: Backtest }) {
  const [points, setPoints] = useState<Points>({ state: 'loading' });
  const { initial_balance: initial, account_currency: currency } = backtest.settings;

  useEffect(() => {
    let cancelled = false;
    setPoints({ state: 'loading' });
    api
      .backtestEquity(backtest.id)
      .then((answer) => !cancelled && setPoints({ state: 'ok', points: answer.points }))
      .catch((err: unknown) => !cancelled && setPoints({ state: 'error', message: describeError(err) }));
    return () => {
      cancelled = true;
    };
  }, [api, backtest.id]);

  const ready = points.state === 'ok' && points.points.length > 0;
  const { container, chart } = useChart((element) => new EquityChart(element), ready);
  useEffect(() => {
    if (points.state === 'ok') chart.current?.show(points.points, initial);
  }, [ready, points, initial]);

  const summary = points.state === 'ok' ? equitySummary(points.points) : null;
  return (
    <section class="panel" aria-labelledby="equity-title">
      <h2 id="equity-title">Equity and drawdown</h2>
      {points.state === 'loading' && (
        <p class="loading" role="status">
          Reading the equity curve…
        </p>
      )}
      {points.state === 'error' && (
        <p class="error" role="alert">
          The equity curve cannot be read: {points.message}.
        </p>
      )}
      {points.state === 'ok' && points.points.length === 0 && <p class="empty">No equity point: the window held no candle.</p>}
      <figure class="chart-figure" aria-labelledby="equity-caption" hidden={!ready}>
        <div ref={container} class="chart equity" role="img" aria-label="Equity curve above, drawdown below" />
        {summary && ready && (
          <figcaption id="equity-caption" class="legend" data-points={summary.points}>
            Equity from {formatMoney(summary.first, currency)} to {formatMoney(summary.last, currency)} over {summary.points} points (green above the initial{' '}
            {formatMoney(initial, currency)}, red below); drawdown below its running high, deepest {summary.deepestPercent.toFixed(2)} %.
          </figcaption>
        )}
      </figure>
    </section>
  );
}
