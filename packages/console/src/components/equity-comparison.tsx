import { JOURNAL_ACCOUNTS, type Backtest, type JournalAccount, type Performance } from '@fxdesk/schemas';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { describeRefusal, type Api } from '../api.js';
import { ComparisonChart } from '../chart/comparison-chart.js';
import { backtestPnlLine, comparisonSummary, journalPnlLine, type PnlLine } from '../chart/comparison-data.js';
import { useChart } from '../chart/use-chart.js';
import { formatDateTime, formatMoney, pairLabel } from '../format.js';
import { comparisonRequest, findComparison, periodStart, type Period } from '../journal-comparison.js';
import { isActive } from '../lab/jobs.js';
import { useJob, type JobRead } from '../lab/use-job.js';
import { Link } from '../router.js';
import { backtestHref } from '../routes.js';
import { useDesk } from '../use-desk.js';

/** Backtests looked through for the period's own (newest first): the Lab's first page. */
const LOOKED_THROUGH = 50;

type JournalRead =
  | { state: 'loading' }
  | { state: 'empty' }
  | { state: 'ok'; account: JournalAccount; performance: Performance; fromIso: string }
  | { state: 'error'; message: string };

const LOADING: JournalRead = { state: 'loading' };

const signed = (value: number) => `${value > 0 ? '+' : ''}${formatMoney(value)}`;

/**
 * The account's realized equity since the period's start: GET /console/performance (from the
 * first trade's exit to now), then the first trade closed, whose entry day starts the period.
 * No trade exits between that day and the first exit, so the performance read covers the period.
 * A read again of the same account keeps the curves shown until it is answered.
 */
function useJournalEquity(api: Api, account: JournalAccount, reads: number): JournalRead {
  const [read, setRead] = useState<JournalRead>(LOADING);
  useEffect(() => {
    let cancelled = false;
    setRead((shown) => (shown.state === 'ok' && shown.account === account ? shown : LOADING));
    (async () => {
      const performance = await api.performance({ account });
      if (cancelled) return;
      if (performance.equity.length === 0) return setRead({ state: 'empty' });
      const first = await api.trades({ account, to: new Date(Date.parse(performance.from) + 1).toISOString(), limit: 1 });
      const fromIso = periodStart(first.trades[0] ?? { entry_time: performance.from });
      if (!cancelled) setRead({ state: 'ok', account, performance, fromIso });
    })().catch((err: unknown) => !cancelled && setRead({ state: 'error', message: describeRefusal(err) }));
    return () => {
      cancelled = true;
    };
  }, [api, account, reads]);
  // Another account's curve is not shown while this one's is read.
  return read.state === 'ok' && read.account !== account ? LOADING : read;
}

/** The journal's equity curve beside a backtest's of the same period, pairs, timeframe and settings (issue 23). */
export function EquityComparison() {
  const { state, api } = useDesk();
  const [picked, setPicked] = useState<JournalAccount | null>(null);
  // The account the desk trades (or last traded); paper on a desk never started.
  const account = picked ?? (state.status?.dry_run === false ? 'live' : 'paper');
  const [reads, setReads] = useState(0);
  const journal = useJournalEquity(api, account, reads);
  const instruments = Object.keys(state.pairs).sort();
  const timeframe = state.status?.timeframe;

  const period: Period | null =
    journal.state === 'ok' && timeframe && instruments.length > 0
      ? { account, instruments, timeframe, fromIso: journal.fromIso, toIso: journal.performance.to, initialEquity: journal.performance.initial_equity }
      : null;
  const request = period && comparisonRequest(period);
  const wanted = request ? `${request.name}|${request.instruments.join()}|${request.timeframe}` : null;
  // The backtest shown, for the period it was looked up or started for.
  const [found, setFound] = useState<{ wanted: string; id: string | null } | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    if (!request || !wanted || found?.wanted === wanted) return;
    let cancelled = false;
    api
      .backtests({ limit: LOOKED_THROUGH })
      .then((list) => !cancelled && setFound({ wanted, id: findComparison(list.backtests, request)?.id ?? null }))
      .catch(() => !cancelled && setFound({ wanted, id: null }));
    return () => {
      cancelled = true;
    };
  }, [api, wanted]);

  const shownId = found && found.wanted === wanted ? found.id : null;
  const run = async () => {
    if (!period || !wanted) return;
    setBusy(true);
    setProblem(null);
    try {
      // Up to now as the strategy's clock has it: the journal read again.
      const fresh = await api.performance({ account });
      const { id } = await api.startBacktest(comparisonRequest({ ...period, toIso: fresh.to, initialEquity: fresh.initial_equity }));
      setFound({ wanted, id });
      setReads((n) => n + 1);
    } catch (err) {
      setProblem(describeRefusal(err));
    } finally {
      setBusy(false);
    }
  };

  // Made once per read: the chart is drawn again only when a curve changes, not at each of the desk's events.
  const line = useMemo(() => (journal.state === 'ok' ? journalPnlLine(journal.performance, journal.fromIso) : []), [journal]);
  return (
    <section class="panel comparison" aria-labelledby="comparison-title">
      <header class="panel-head">
        <h2 id="comparison-title">Journal beside its backtest</h2>
        <div role="radiogroup" aria-label="Account compared" class="timeframes">
          {JOURNAL_ACCOUNTS.map((a) => (
            <label key={a} class={a === account ? 'checked' : ''}>
              <input type="radio" name="comparison-account" value={a} checked={a === account} onChange={() => setPicked(a)} />
              {a}
            </label>
          ))}
        </div>
      </header>
      {journal.state === 'loading' && (
        <p class="loading" role="status">
          Reading the {account} journal…
        </p>
      )}
      {journal.state === 'error' && (
        <p class="error" role="alert">
          The {account} journal's equity cannot be read: {journal.message}.
        </p>
      )}
      {journal.state === 'empty' && <p class="empty">No closed trade on the {account} account yet: nothing to compare.</p>}
      {journal.state === 'ok' && (
        <>
          <p class="note">
            From {journal.fromIso.slice(0, 10)} (the day its first closed trade entered) to {formatDateTime(journal.performance.to)}: the {account} account's
            realized P/L beside a backtest of {instruments.map(pairLabel).join(', ') || 'the desk’s pairs'} on {timeframe ?? 'the strategy’s timeframe'}, with
            the strategy's settings and the paper account's fills.
          </p>
          {shownId ? (
            <BacktestBeside key={shownId} api={api} id={shownId} journal={line} account={account} />
          ) : (
            <ComparisonFigure journal={line} backtest={null} account={account} />
          )}
          <p>
            <button type="button" disabled={busy || !request || found?.wanted !== wanted} onClick={() => void run()}>
              {busy ? 'Starting…' : shownId ? 'Run the backtest again up to now' : 'Run the backtest of this period'}
            </button>
          </p>
          {problem && (
            <p class="error" role="alert">
              The backtest did not start: {problem}.
            </p>
          )}
        </>
      )}
    </section>
  );
}

/** The period's backtest, followed to its end, its equity drawn beside the journal's. */
function BacktestBeside({ api, id, journal, account }: { api: Api; id: string; journal: PnlLine; account: JournalAccount }) {
  const { job } = useJob(() => api.backtest(id), { kind: 'backtest', id });
  const backtest = job.state === 'ok' ? job.job : null;
  const isDone = backtest?.status === 'done';
  const [points, setPoints] = useState<PnlLine | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  useEffect(() => {
    if (!backtest || !isDone) return;
    let cancelled = false;
    api
      .backtestEquity(id)
      .then((answer) => !cancelled && setPoints(backtestPnlLine(answer.points, backtest.settings.initial_balance)))
      .catch((err: unknown) => !cancelled && setFailure(describeRefusal(err)));
    return () => {
      cancelled = true;
    };
  }, [api, id, isDone]);

  return (
    <>
      <p class="job-line">
        <Link href={backtestHref(id)}>The backtest</Link> <span data-comparison-status={backtest?.status ?? job.state}>{backtestState(backtest, job)}</span>
        {backtest && isActive(backtest.status) && <progress max={1} value={backtest.progress} aria-label="The backtest's progress" />}
      </p>
      {failure && (
        <p class="error" role="alert">
          The backtest's equity cannot be read: {failure}.
        </p>
      )}
      <ComparisonFigure journal={journal} backtest={points} backtestTo={backtest?.settings.to} account={account} />
    </>
  );
}

function backtestState(backtest: Backtest | null, job: JobRead<Backtest>): string {
  if (job.state === 'loading') return 'is being read…';
  if (job.state === 'error') return `cannot be read: ${job.message}`;
  if (!backtest) return '';
  if (backtest.status === 'queued') return 'waits for a worker…';
  if (backtest.status === 'running') return `runs: ${Math.floor(backtest.progress * 100)} %`;
  if (backtest.status === 'failed') return `failed: ${backtest.error?.message ?? 'no reason given'}`;
  if (backtest.status === 'cancelled') return 'was cancelled';
  return `ran ${formatDateTime(backtest.settings.from)} to ${formatDateTime(backtest.settings.to)}`;
}

/** The chart of both curves and, as its caption, each one's P/L and how far apart they end. */
function ComparisonFigure({
  journal,
  backtest,
  backtestTo,
  account,
}: {
  journal: PnlLine;
  backtest: PnlLine | null;
  backtestTo?: string;
  account: JournalAccount;
}) {
  const ready = journal.length > 0;
  const { container, chart } = useChart((element) => new ComparisonChart(element), ready);
  useEffect(() => {
    chart.current?.show(journal, backtest);
  }, [ready, journal, backtest]);
  const summary = comparisonSummary(journal, backtest);
  return (
    <figure class="chart-figure" aria-labelledby="comparison-caption" hidden={!ready}>
      <div ref={container} class="chart equity comparison" role="img" aria-label={`The ${account} journal's P/L and the backtest's over the same period`} />
      <figcaption id="comparison-caption">
        <ul class="legend" aria-label="Curves">
          <li data-curve="journal" data-points={summary.journalPoints}>
            <span class="swatch journal" aria-hidden="true" /> Journal ({account}, realized at each exit): {signed(summary.journalPnl)}
          </li>
          <li data-curve="backtest" data-points={summary.backtestPoints}>
            <span class="swatch backtest" aria-hidden="true" /> Backtest (marked at each candle):{' '}
            {summary.backtestPnl === null ? 'not run yet' : signed(summary.backtestPnl)}
          </li>
          {summary.gap !== null && (
            <li data-curve="gap">
              At the backtest's end{backtestTo ? ` (${formatDateTime(backtestTo)})` : ''} the journal is {formatMoney(Math.abs(summary.gap))}{' '}
              {summary.gap >= 0 ? 'ahead of' : 'behind'} it
            </li>
          )}
        </ul>
      </figcaption>
    </figure>
  );
}
