import type { StrategyIdle, StrategyStatus } from '@fxdesk/schemas';
import { useEffect, useState } from 'preact/hooks';
import { describeError } from '../api.js';
import { formatAgo, formatDateTime, pairLabel } from '../format.js';
import { useDesk, useNow } from '../use-desk.js';

type Outcome = { kind: 'ok' | 'error'; text: string } | null;

function modeText(status: StrategyStatus): string {
  if (status.dry_run === null) return 'never started';
  const mode = status.dry_run ? 'paper (dry run)' : 'live orders';
  return status.running ? mode : `${mode}, in the last run`;
}

/** Why the strategy is idle, as /status says it, with the stop's time in the page's format. */
function idleText(idle: StrategyIdle): string {
  switch (idle.reason) {
    case 'stopped':
      return `Stopped ${idle.since ? `on ${formatDateTime(idle.since)} ` : ''}(Stop, or POST /stop): it stays stopped across restarts of the service until Start.`;
    case 'never_started':
      return 'Never started on this desk (AUTO_START is off): Start runs it.';
    case 'starting':
      return 'Starting by itself, once the market lists its symbols…';
    case 'start_failed':
      return 'Its start at boot failed (the strategy log says why): Start runs it.';
    case 'not_resumed':
      return 'It was running when the service last stopped, and is not resumed (RESUME_ON_START=false): Start runs it.';
  }
}

/** Strategy state with start, stop, restart and the dry-run switch (the console's control routes). */
export function StrategyPanel({ status }: { status: StrategyStatus }) {
  const { api, dispatch, state } = useDesk();
  const now = useNow(5000);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  // The mode the next start uses: the running start's, or the last run's (kept across restarts
  // of the service), so a Start after a stop trades as the desk did; paper only on a desk never started.
  const [dryRun, setDryRun] = useState(status.dry_run ?? true);
  const [confirming, setConfirming] = useState(false);
  useEffect(() => {
    if (status.dry_run !== null) setDryRun(status.dry_run);
  }, [status.running, status.dry_run]);

  const run = async (what: string, call: () => Promise<void>) => {
    setBusy(true);
    setOutcome(null);
    try {
      await call();
    } catch (err) {
      setOutcome({ kind: 'error', text: `${what} failed: ${describeError(err)}` });
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };

  // The last start's pairs stay listed while stopped: a start from here monitors them again.
  const instruments = status.running ? status.active_pairs : state.order;
  const start = (mode: boolean) =>
    run('Start', async () => {
      const res = await api.start({ dry_run: mode, ...(instruments.length > 0 ? { instruments } : {}) });
      dispatch({
        type: 'status',
        status: { ...status, running: true, started_at: res.started_at, active_pairs: res.instruments, dry_run: res.dry_run },
        at: Date.now(),
      });
      setOutcome({ kind: 'ok', text: `Started on ${res.instruments.length} pairs, ${res.dry_run ? 'paper trading' : 'sending orders'}.` });
    });
  const stop = async () => {
    const res = await api.stop();
    dispatch({ type: 'status', status: { ...status, running: false, started_at: null, active_pairs: [] }, at: Date.now() });
    setOutcome({ kind: 'ok', text: `Stopped; ${res.signals_generated} signals in that run.` });
  };
  const restart = () =>
    run('Restart', async () => {
      const res = await api.restart();
      dispatch({
        type: 'status',
        status: { ...status, running: true, started_at: res.restarted_at, active_pairs: res.instruments, dry_run: res.dry_run },
        at: Date.now(),
      });
      setOutcome({ kind: 'ok', text: `Restarted on ${res.instruments.length} pairs.` });
    });
  const switchMode = (mode: boolean) => {
    setDryRun(mode);
    if (status.running) setConfirming(true);
  };
  const applyMode = () =>
    run('Switching mode', async () => {
      await stop();
      const res = await api.start({ dry_run: dryRun, instruments: status.active_pairs });
      dispatch({
        type: 'status',
        status: { ...status, running: true, started_at: res.started_at, active_pairs: res.instruments, dry_run: res.dry_run },
        at: Date.now(),
      });
      setOutcome({ kind: 'ok', text: `Started again, ${res.dry_run ? 'paper trading' : 'sending orders'}.` });
    });

  return (
    <section class="panel strategy" aria-labelledby="strategy-title">
      <header class="panel-head">
        <h2 id="strategy-title">Strategy</h2>
        <span class={`badge ${status.running ? 'ok' : 'idle'}`} role="status" aria-label={`Strategy ${status.running ? 'running' : 'stopped'}`}>
          {status.running ? 'Running' : 'Stopped'}
        </span>
      </header>
      <dl class="facts">
        <div>
          <dt>Started</dt>
          <dd>{status.started_at ? formatDateTime(status.started_at) : '—'}</dd>
        </div>
        <div>
          <dt>Timeframe</dt>
          <dd>{status.timeframe}</dd>
        </div>
        <div>
          <dt>Mode</dt>
          <dd data-fact="mode">{modeText(status)}</dd>
        </div>
        <div>
          <dt>Signals today</dt>
          <dd>{status.total_signals_today}</dd>
        </div>
        <div>
          <dt>Last signal</dt>
          <dd>{formatAgo(status.last_signal_time, now)}</dd>
        </div>
        <div>
          <dt>Pairs</dt>
          <dd>{status.running ? status.active_pairs.map(pairLabel).join(', ') : 'none (stopped)'}</dd>
        </div>
      </dl>
      {status.idle && (
        <p class="note idle" data-idle={status.idle.reason}>
          {idleText(status.idle)}
        </p>
      )}
      <div class="controls">
        <button type="button" onClick={() => void start(dryRun)} disabled={busy || status.running}>
          Start
        </button>
        <button type="button" onClick={() => void run('Stop', stop)} disabled={busy || !status.running}>
          Stop
        </button>
        <button type="button" onClick={() => void restart()} disabled={busy || !status.running}>
          Restart
        </button>
        <label class="switch">
          <input type="checkbox" role="switch" checked={dryRun} disabled={busy} onChange={(e) => switchMode(e.currentTarget.checked)} />
          Dry run (paper trading)
        </label>
      </div>
      {confirming && (
        <div class="confirm" role="group" aria-label="Confirm the mode change">
          <p>{dryRun ? 'Stop and start again trading the paper account?' : 'Stop and start again sending real orders to the execution service?'}</p>
          <button type="button" onClick={() => void applyMode()} disabled={busy}>
            {dryRun ? 'Switch to paper' : 'Send orders'}
          </button>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setConfirming(false);
              setDryRun(status.dry_run ?? true);
            }}
          >
            Cancel
          </button>
        </div>
      )}
      {outcome && (
        <p class={outcome.kind === 'error' ? 'error' : 'note'} role={outcome.kind === 'error' ? 'alert' : 'status'}>
          {outcome.text}
        </p>
      )}
    </section>
  );
}
