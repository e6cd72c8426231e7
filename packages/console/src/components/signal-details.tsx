import type { SignalRecord, StrategySignal } from '@fxdesk/schemas';
import { useEffect, useState } from 'preact/hooks';
import { describeError } from '../api.js';
import { formatDateTime, formatPrice, humanize } from '../format.js';
import { useDesk } from '../use-desk.js';
import { StatusBadge } from './signal-table.js';

/** Execution statuses under which the execution service holds a record of the order. */
const RECORDED = new Set(['filled', 'partially_filled', 'placed', 'rejected', 'unknown']);

function deliveries(count: number): string {
  return count === 0 ? '' : count === 1 ? '1 delivery' : `${count} deliveries`;
}

type OrderRead = { state: 'none' } | { state: 'ok'; record: SignalRecord } | { state: 'error'; message: string };

/** The picked signal: its levels, why it fired, and what the execution and notification services made of it. */
export function SignalDetails({ signal }: { signal: StrategySignal }) {
  const { api } = useDesk();
  const [order, setOrder] = useState<OrderRead>({ state: 'none' });
  const { instrument, execution, indicators } = signal;
  const price = (value: number) => formatPrice(value, instrument);

  // The order as the execution service recorded it, read again each time the signal's execution moves.
  useEffect(() => {
    if (!RECORDED.has(execution.status)) return setOrder({ state: 'none' });
    let cancelled = false;
    api
      .order(signal.signal_id)
      .then((record) => !cancelled && setOrder({ state: 'ok', record }))
      .catch((err: unknown) => !cancelled && setOrder({ state: 'error', message: describeError(err) }));
    return () => {
      cancelled = true;
    };
  }, [api, signal.signal_id, execution.status, execution.updated_at]);

  const record = order.state === 'ok' ? order.record : null;
  const tickets = record?.tickets ?? execution.tickets;
  return (
    <section class="panel selected-signal" aria-labelledby="selected-title">
      <h2 id="selected-title">
        {signal.type} signal of {formatDateTime(signal.generated_at)}
      </h2>
      <dl class="facts">
        <div>
          <dt>Entry</dt>
          <dd>{price(signal.entry_price)}</dd>
        </div>
        <div>
          <dt>Stop</dt>
          <dd>{price(signal.stop_loss)}</dd>
        </div>
        <div>
          <dt>Target</dt>
          <dd>{price(signal.take_profit)}</dd>
        </div>
        <div class="wide">
          <dt>Confluence</dt>
          <dd>
            {signal.confluence_score}/4 · Supertrend {indicators.supertrend.trend}, Stoch RSI {humanize(indicators.stochrsi.signal)}, FVG {indicators.fvg.type},
            POC {price(indicators.volume_profile.poc)}
          </dd>
        </div>
        <div>
          <dt>Order</dt>
          <dd>
            <StatusBadge status={record?.state ?? execution.status} /> {record?.error?.code ?? execution.code ?? ''}
            {signal.dry_run ? ' (dry run)' : ''}
          </dd>
        </div>
        <div>
          <dt>Fill price</dt>
          <dd>{record?.result?.price ? price(Number(record.result.price)) : '—'}</dd>
        </div>
        <div>
          <dt>Retcode</dt>
          <dd>{record?.result ? `${record.result.retcode} ${record.result.retcode_name}` : '—'}</dd>
        </div>
        <div>
          <dt>Tickets</dt>
          <dd>{tickets ? [tickets.order && `order ${tickets.order}`, tickets.deal && `deal ${tickets.deal}`].filter(Boolean).join(' · ') || '—' : '—'}</dd>
        </div>
        <div>
          <dt>Announcement</dt>
          <dd>
            <StatusBadge status={signal.notification.status} /> {deliveries(signal.notification.delivery_ids.length)}
          </dd>
        </div>
      </dl>
      {(record?.error ?? execution.message) && <p class="note">{record?.error?.message ?? execution.message}</p>}
      {order.state === 'error' && <p class="note">The execution service's record cannot be read: {order.message}.</p>}
    </section>
  );
}
