import type { BacktestSummary, LabEvent, SweepSummary } from '@fxdesk/schemas';
import { useEffect, useRef } from 'preact/hooks';
import { LabForm } from '../components/lab-form.js';
import { ListState, MoreButton } from '../components/list-state.js';
import { StatusBadge } from '../components/signal-table.js';
import { formatMoney, formatWhen, pairLabel } from '../format.js';
import { FALLBACK_POLL_MS, isActive, jobState, listNews } from '../lab/jobs.js';
import { formatMetric, metricLabel } from '../lab/metrics.js';
import { Link } from '../router.js';
import { backtestHref, sweepHref } from '../routes.js';
import { useDesk, useNow } from '../use-desk.js';
import { usePaged, type Paged } from '../use-paged.js';

const PAGE = 20;

function day(iso: string): string {
  return iso.slice(0, 10);
}

type Job = { id: string; status: BacktestSummary['status']; progress: number };

/**
 * Keeps a list's runs current from the `lab` events: a run's progress moved in its row, its first
 * page read again when a run it shows changes status or one it does not show appears (and after
 * a `reset`, and when the stream is back). While the stream is down and a run moves, the first
 * page is read every 10 s instead.
 */
function useFollowList<T extends Job>(list: Pick<Paged<T>, 'items' | 'refresh' | 'patch'>, kind: LabEvent['kind']): void {
  const { listen, state } = useDesk();
  const current = useRef(list);
  current.current = list;
  useEffect(
    () =>
      listen((name, data) => {
        if (name === 'reset') return current.current.refresh();
        if (name !== 'lab') return;
        const event = data as LabEvent;
        const news = listNews(event, kind, current.current.items);
        if (news?.type === 'read') current.current.refresh();
        else if (news?.type === 'progress') current.current.patch(event.id, (item) => ({ ...item, progress: news.progress }));
      }),
    [listen, kind],
  );

  const isStreamDown = state.connection === 'reconnecting';
  const wasDown = useRef(false);
  const moving = list.items.some((item) => isActive(item.status));
  useEffect(() => {
    if (!isStreamDown) {
      if (wasDown.current) current.current.refresh();
      wasDown.current = false;
      return;
    }
    wasDown.current = true;
    if (!moving) return;
    const timer = setInterval(() => current.current.refresh(), FALLBACK_POLL_MS);
    return () => clearInterval(timer);
  }, [isStreamDown, moving]);
}

/** The lab: a new backtest or sweep, and the runs so far (newest first, cursor-paged). */
export function LabPage() {
  const { state, api } = useDesk();
  const now = useNow(10_000);
  const backtests = usePaged<BacktestSummary>(
    async (cursor) => {
      const page = await api.backtests({ limit: PAGE, cursor });
      return { items: page.backtests, next: page.next_cursor };
    },
    (b) => b.id,
    [api],
  );
  const sweeps = usePaged<SweepSummary>(
    async (cursor) => {
      const page = await api.sweeps({ limit: PAGE, cursor });
      return { items: page.sweeps, next: page.next_cursor };
    },
    (s) => s.id,
    [api],
  );
  useFollowList(backtests, 'backtest');
  useFollowList(sweeps, 'sweep');

  const instruments = Object.keys(state.pairs).sort();
  return (
    <div class="lab">
      <h1>Lab</h1>
      <p class="note">
        Backtests run the live strategy's own code over past candles; a sweep tries a grid of rule settings and ranks them, optionally walking forward to see
        whether the best settings hold up on the candles after those they were chosen on.
      </p>
      {state.status ? (
        <LabForm instruments={instruments} timeframe={state.status.timeframe} />
      ) : (
        <p class="loading" role="status">
          Reading the desk…
        </p>
      )}

      <section class="panel" aria-labelledby="backtests-title">
        <h2 id="backtests-title">Backtests</h2>
        <ListState list={backtests} what="backtests" />
        {backtests.items.length === 0 && !backtests.loading && !backtests.error && <p class="empty">No backtest yet: start one above.</p>}
        {backtests.items.length > 0 && (
          <table class="grid cards runs" aria-label="Backtests">
            <thead>
              <tr>
                <th scope="col">Backtest</th>
                <th scope="col">State</th>
                <th scope="col">Pairs</th>
                <th scope="col">Window</th>
                <th scope="col">Net profit</th>
                <th scope="col">Trades</th>
                <th scope="col">Started</th>
              </tr>
            </thead>
            <tbody>
              {backtests.items.map((b) => (
                <tr key={b.id} data-backtest-id={b.id}>
                  <td data-label="Backtest">
                    <Link href={backtestHref(b.id)}>{b.name ?? `${b.settings.instruments.length} pairs, ${b.settings.timeframe}`}</Link>
                  </td>
                  <td data-label="State">
                    <StatusBadge status={b.status} title={b.error?.message} /> {isActive(b.status) && <span class="muted num">{jobState(b)}</span>}
                  </td>
                  <td data-label="Pairs">{b.settings.instruments.map(pairLabel).join(', ')}</td>
                  <td data-label="Window">
                    {b.settings.timeframe} {day(b.settings.from)} – {day(b.settings.to)}
                  </td>
                  <td data-label="Net profit" class={`num ${b.metrics && b.metrics.overall.net_profit > 0 ? 'up' : b.metrics ? 'down' : ''}`}>
                    {b.metrics ? formatMoney(b.metrics.overall.net_profit, b.settings.account_currency) : '—'}
                  </td>
                  <td data-label="Trades" class="num">
                    {b.metrics?.overall.trade_count ?? '—'}
                  </td>
                  <td data-label="Started">{formatWhen(b.created_at, now)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <MoreButton list={backtests} what="backtests" />
      </section>

      <section class="panel" aria-labelledby="sweeps-title">
        <h2 id="sweeps-title">Sweeps</h2>
        <ListState list={sweeps} what="sweeps" />
        {sweeps.items.length === 0 && !sweeps.loading && !sweeps.error && <p class="empty">No sweep yet.</p>}
        {sweeps.items.length > 0 && (
          <table class="grid cards runs" aria-label="Sweeps">
            <thead>
              <tr>
                <th scope="col">Sweep</th>
                <th scope="col">State</th>
                <th scope="col">Settings</th>
                <th scope="col">Window</th>
                <th scope="col">Best</th>
                <th scope="col">Started</th>
              </tr>
            </thead>
            <tbody>
              {sweeps.items.map((s) => (
                <tr key={s.id} data-sweep-id={s.id}>
                  <td data-label="Sweep">
                    <Link href={sweepHref(s.id)}>{s.name ?? `${s.settings_count} settings by ${metricLabel(s.settings.rank_by)}`}</Link>
                  </td>
                  <td data-label="State">
                    <StatusBadge status={s.status} title={s.error?.message} /> {isActive(s.status) && <span class="muted num">{jobState(s)}</span>}
                  </td>
                  <td data-label="Settings" class="num">
                    {s.settings_count}
                    {s.settings.walk_forward ? `, walk-forward ×${s.settings.walk_forward.windows}` : ''}
                  </td>
                  <td data-label="Window">
                    {s.settings.base.timeframe} {day(s.settings.base.from)} – {day(s.settings.base.to)}
                  </td>
                  <td data-label="Best" class="num">
                    {s.best ? `${metricLabel(s.settings.rank_by)} ${formatMetric(s.settings.rank_by, s.best.metric, s.settings.base.account_currency)}` : '—'}
                  </td>
                  <td data-label="Started">{formatWhen(s.created_at, now)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <MoreButton list={sweeps} what="sweeps" />
      </section>
    </div>
  );
}
