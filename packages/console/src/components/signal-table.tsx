import type { StrategySignal } from '@fxdesk/schemas';
import { formatPrice, formatWhen, humanize, pairLabel } from '../format.js';
import { Link } from '../router.js';
import { signalHref } from '../routes.js';
import { useNow } from '../use-desk.js';

const GOOD = new Set(['filled', 'partially_filled', 'placed', 'paper', 'sent', 'delivered', 'read', 'done']);
const BAD = new Set(['rejected', 'unknown', 'failed']);

/** A status word coloured by what it means for the trader: done, pending, or needs a look. */
export function StatusBadge({ status, title }: { status: string; title?: string | undefined }) {
  const tone = GOOD.has(status) ? 'ok' : BAD.has(status) ? 'bad' : 'idle';
  return (
    <span class={`badge ${tone}`} title={title}>
      {humanize(status)}
    </span>
  );
}

interface SignalTableProps {
  signals: StrategySignal[];
  label: string;
  /** Leave out the pair column (the pair page lists one pair's). */
  hidePair?: boolean;
  /** The signal picked out on the chart, marked as the current row. */
  selectedId?: string | null;
}

/** Signals newest first, each row linking to the signal on its pair's chart. */
export function SignalTable({ signals, label, hidePair = false, selectedId = null }: SignalTableProps) {
  const now = useNow(10_000);
  return (
    <table class="grid cards signals" aria-label={label}>
      <thead>
        <tr>
          <th scope="col">Time</th>
          {!hidePair && <th scope="col">Pair</th>}
          <th scope="col">Signal</th>
          <th scope="col">Entry</th>
          <th scope="col">Stop</th>
          <th scope="col">Target</th>
          <th scope="col">Score</th>
          <th scope="col">Order</th>
          <th scope="col">Announcement</th>
        </tr>
      </thead>
      <tbody>
        {signals.map((s) => (
          <tr key={s.signal_id} data-signal-id={s.signal_id} aria-current={s.signal_id === selectedId ? 'true' : undefined}>
            <td data-label="Time">
              <Link href={signalHref(s)} aria-label={`${s.type} ${pairLabel(s.instrument)} at ${formatWhen(s.generated_at, now)} on the chart`}>
                {formatWhen(s.generated_at, now)}
              </Link>
            </td>
            {!hidePair && <td data-label="Pair">{pairLabel(s.instrument)}</td>}
            <td data-label="Signal" class={s.type === 'LONG' ? 'up' : 'down'}>
              {s.type} <span class="muted">{s.timeframe}</span>
            </td>
            <td data-label="Entry" class="num">
              {formatPrice(s.entry_price, s.instrument)}
            </td>
            <td data-label="Stop" class="num">
              {formatPrice(s.stop_loss, s.instrument)}
            </td>
            <td data-label="Target" class="num">
              {formatPrice(s.take_profit, s.instrument)}
            </td>
            <td data-label="Score" class="num">
              {s.confluence_score}/4 · {s.risk_reward.toFixed(1)}R
            </td>
            <td data-label="Order">
              <StatusBadge status={s.execution.status} title={s.execution.message ?? s.execution.code ?? undefined} />
              {s.execution.status === 'skipped' && s.execution.code && <span class="muted"> {humanize(s.execution.code)}</span>}
            </td>
            <td data-label="Announcement">
              <StatusBadge status={s.notification.status} title={s.notification.message ?? undefined} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
