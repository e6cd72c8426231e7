import type { OpenPosition } from '@fxdesk/schemas';
import { useState } from 'preact/hooks';
import { EquityComparison } from '../components/equity-comparison.js';
import { JournalPanel } from '../components/journal-panel.js';
import { formatMoney, formatWhen } from '../format.js';
import { useDesk, useNow } from '../use-desk.js';
import { usePositions } from '../use-positions.js';
import { useMoneyAction } from '../use-money-action.js';

/** The open positions with their P/L and stops, a Close per position, Flatten all behind a confirmation, the journal's equity beside its backtest's, and the journal. */
export function PositionsPage() {
  const { book, refresh } = usePositions();
  const positions = 'positions' in book ? book.positions : [];
  return (
    <div class="positions">
      <h1>Positions</h1>
      <section class="panel" aria-labelledby="open-title">
        <header class="panel-head">
          <h2 id="open-title">Open positions</h2>
          {book.state !== 'not_configured' && <FlattenAll count={positions.length} onSettled={refresh} />}
        </header>
        {book.state === 'loading' && (
          <p class="loading" role="status">
            Reading the positions…
          </p>
        )}
        {book.state === 'not_configured' && <p class="empty">No positions: the strategy has no EXECUTION_URL (it trades the paper account only).</p>}
        {book.state === 'error' && (
          <p class="error" role="alert">
            The positions cannot be read: {book.message}.{positions.length > 0 && ' Shown as last read.'}
          </p>
        )}
        {book.state === 'ready' && positions.length === 0 && <p class="empty">No open position.</p>}
        {positions.length > 0 && <PositionsTable positions={positions} onSettled={refresh} />}
      </section>
      <EquityComparison />
      <JournalPanel />
    </div>
  );
}

function PositionsTable({ positions, onSettled }: { positions: OpenPosition[]; onSettled: () => void }) {
  const now = useNow(10_000);
  return (
    <div class="scroll-x">
      <table class="grid cards open-positions" aria-label="Open positions">
        <thead>
          <tr>
            <th scope="col">Ticket</th>
            <th scope="col">Symbol</th>
            <th scope="col">Side</th>
            <th scope="col">Volume</th>
            <th scope="col">Open price</th>
            <th scope="col">SL</th>
            <th scope="col">TP</th>
            <th scope="col">Profit</th>
            <th scope="col">Swap</th>
            <th scope="col">Opened</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {positions.map((p) => (
            <tr key={p.ticket} data-ticket={p.ticket}>
              <td data-label="Ticket">{p.ticket}</td>
              <td data-label="Symbol">{p.symbol}</td>
              <td data-label="Side">{p.side}</td>
              <td data-label="Volume" class="num">
                {p.volume}
              </td>
              <td data-label="Open price" class="num">
                {p.open_price}
              </td>
              <td data-label="SL" class="num">
                {p.sl ?? '—'}
              </td>
              <td data-label="TP" class="num">
                {p.tp ?? '—'}
              </td>
              <td data-label="Profit" class="num">
                {formatMoney(p.profit)}
              </td>
              <td data-label="Swap" class="num">
                {formatMoney(p.swap)}
              </td>
              <td data-label="Opened">{formatWhen(p.opened_at, now)}</td>
              <td data-label="Actions">
                <CloseButton ticket={p.ticket} onSettled={onSettled} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Closes one position: a new Idempotency-Key per click, the same one for the retry of an open outcome. */
function CloseButton({ ticket, onSettled }: { ticket: string; onSettled: () => void }) {
  const { api } = useDesk();
  const close = useMoneyAction(
    (key) => api.closePosition(ticket, key),
    (answer) => `closed at ${answer.result.price ?? 'the market'}`,
    onSettled,
  );
  const { state } = close;
  return (
    <span class="row-action">
      <button type="button" class="secondary" disabled={state.step === 'sending'} onClick={() => void close.run()} aria-label={`Close position ${ticket}`}>
        {state.step === 'sending' ? 'Closing…' : close.isRetry ? 'Retry close' : 'Close'}
      </button>
      {'text' in state && (
        <span class={state.step === 'done' ? 'note' : 'error'} role={state.step === 'done' ? 'status' : 'alert'}>
          {' '}
          {state.text}
        </span>
      )}
    </span>
  );
}

/** Closes every position of the strategy's orders, once confirmed; its retries go under the same key. */
function FlattenAll({ count, onSettled }: { count: number; onSettled: () => void }) {
  const { api } = useDesk();
  const [isConfirming, setConfirming] = useState(false);
  const flatten = useMoneyAction(
    (key) => api.closeAll(key),
    (answer) => {
      const done = answer.positions.filter((p) => p.state === 'done').length;
      const open = answer.positions.filter((p) => p.state !== 'done').map((p) => `${p.ticket} ${p.state}`);
      return `${done} of ${answer.positions.length} closed${open.length > 0 ? `; not closed: ${open.join(', ')}` : ''}`;
    },
    () => {
      setConfirming(false);
      onSettled();
    },
  );
  const { state } = flatten;
  return (
    <div class="flatten">
      {isConfirming ? (
        <div class="confirm" role="group" aria-label="Confirm the flatten">
          <p>Close all {count} open positions of the strategy at the market?</p>
          <button type="button" disabled={state.step === 'sending'} onClick={() => void flatten.run()}>
            {state.step === 'sending' ? 'Closing…' : 'Close them all'}
          </button>
          <button type="button" class="secondary" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <button type="button" class="secondary" disabled={count === 0 && !flatten.isRetry} onClick={() => setConfirming(true)}>
          {flatten.isRetry ? 'Retry flatten' : 'Flatten all'}
        </button>
      )}
      {'text' in state && (
        <p class={state.step === 'done' ? 'note' : 'error'} role={state.step === 'done' ? 'status' : 'alert'}>
          Flatten: {state.text}
        </p>
      )}
    </div>
  );
}
