import { BacktestTrades } from '../components/backtest-trades.js';
import { EquityPanel } from '../components/equity-panel.js';
import { JobStatus, JobUnread } from '../components/job-status.js';
import { MetricsTable } from '../components/metrics-table.js';
import { RunSettings } from '../components/run-settings.js';
import { SkipsTable } from '../components/skips-table.js';
import { formatMoney } from '../format.js';
import { useJob } from '../lab/use-job.js';
import { Link } from '../router.js';
import { routeHref, sweepHref } from '../routes.js';
import { useDesk } from '../use-desk.js';

/** One backtest: its state while it runs, then its metrics, equity and drawdown, and its trades on the pair's chart. */
export function BacktestPage({ id, instrument }: { id: string; instrument: string | null }) {
  const { api } = useDesk();
  const { job, refresh } = useJob(() => api.backtest(id), { kind: 'backtest', id });
  const lab = routeHref({ page: 'lab' });

  if (job.state !== 'ok') return <JobUnread what="backtest" read={job} />;

  const backtest = job.job;
  const { settings, metrics } = backtest;
  const pair = instrument && settings.instruments.includes(instrument) ? instrument : (settings.instruments[0] as string);

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
      <JobStatus job={backtest} what="backtest" readError={job.error} remove={() => api.deleteBacktest(id)} refresh={refresh} />
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
          <SkipsTable skipped={metrics.skipped} />
        </section>
      )}
      {backtest.status === 'done' && (
        <>
          <EquityPanel api={api} backtest={backtest} />
          <BacktestTrades key={pair} api={api} backtest={backtest} instrument={pair} />
        </>
      )}
    </div>
  );
}
