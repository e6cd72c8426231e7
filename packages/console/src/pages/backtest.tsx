import { BacktestTrades } from '../components/backtest-trades.js';
import { EquityPanel } from '../components/equity-panel.js';
import { JobStatus } from '../components/job-status.js';
import { MetricsTable } from '../components/metrics-table.js';
import { RunSettings } from '../components/run-settings.js';
import { formatMoney } from '../format.js';
import { useJob } from '../lab/use-job.js';
import { Link, navigate } from '../router.js';
import { routeHref, sweepHref } from '../routes.js';
import { useDesk } from '../use-desk.js';

/** One backtest: its state while it runs, then its metrics, equity and drawdown, and its trades on the pair's chart. */
export function BacktestPage({ id, instrument }: { id: string; instrument: string | null }) {
  const { api } = useDesk();
  const { job, refresh } = useJob(() => api.backtest(id), id);
  const lab = routeHref({ page: 'lab' });

  if (job.state === 'loading')
    return (
      <p class="loading" role="status">
        Reading the backtest…
      </p>
    );
  if (job.state === 'error')
    return (
      <div class="panel">
        <h1>Backtest</h1>
        <p class={job.missing ? 'empty' : 'error'} role="alert">
          {job.missing ? 'No such backtest: it may have been deleted. ' : `The backtest cannot be read: ${job.message}. `}
          <Link href={lab}>Back to the lab</Link>
        </p>
      </div>
    );

  const backtest = job.job;
  const { settings, metrics } = backtest;
  const pair = instrument && settings.instruments.includes(instrument) ? instrument : (settings.instruments[0] as string);
  const remove = async () => {
    const ending = backtest.status === 'queued' || backtest.status === 'running';
    await api.deleteBacktest(id);
    if (ending) refresh();
    else navigate(lab);
  };
  return (
    <div class="lab-run">
      <header>
        <p class="crumbs">
          <Link href={lab}>Lab</Link>
          {backtest.sweep_id && (
            <>
              {' '}
              / <Link href={sweepHref(backtest.sweep_id)}>Sweep</Link>
            </>
          )}{' '}
          / Backtest
        </p>
        <h1>{backtest.name ?? 'Backtest'}</h1>
      </header>
      <JobStatus job={backtest} what="backtest" readError={job.error} onDelete={remove} />
      <section class="panel" aria-labelledby="settings-title">
        <h2 id="settings-title">Settings</h2>
        <RunSettings settings={settings} />
      </section>
      {metrics && (
        <section class="panel" aria-labelledby="metrics-title">
          <h2 id="metrics-title">Metrics</h2>
          <p class="note">
            {backtest.candles ?? 0} candles · {backtest.signals} signals, {backtest.skipped_signals} not traded · net{' '}
            {formatMoney(metrics.overall.net_profit, settings.account_currency)}
          </p>
          <MetricsTable metrics={metrics} currency={settings.account_currency} />
        </section>
      )}
      {backtest.status === 'done' && (
        <>
          <EquityPanel api={api} backtest={backtest} />
          <BacktestTrades api={api} backtest={backtest} instrument={pair} />
        </>
      )}
    </div>
  );
}
