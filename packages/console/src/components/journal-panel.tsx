import { EXIT_REASONS, JOURNAL_ACCOUNTS, type ExitReason, type JournalAccount, type JournalTrade } from '@fxdesk/schemas';
import { useState } from 'preact/hooks';
import { tradesCsvHref, type JournalFilter } from '../api.js';
import { pairList } from '../desk-state.js';
import { formatDateTime, formatMoney, formatPrice, humanize, pairLabel } from '../format.js';
import { useDesk } from '../use-desk.js';
import { usePaged } from '../use-paged.js';
import { ListState, MoreButton } from './list-state.js';

const PAGE = 25;

/** The trade journal, newest exit first, with its filters and the CSV of every trade they match. */
export function JournalPanel() {
  const { state, api } = useDesk();
  const [account, setAccount] = useState<JournalAccount | ''>('');
  const [instrument, setInstrument] = useState('');
  const [reason, setReason] = useState<ExitReason | ''>('');
  const filter: JournalFilter = { account: account || undefined, instrument: instrument || undefined, exit_reason: reason || undefined };

  const trades = usePaged<JournalTrade>(
    async (cursor) => {
      const page = await api.trades({ ...filter, limit: PAGE, cursor });
      return { items: page.trades, next: page.next_cursor };
    },
    (t) => t.id,
    [api, account, instrument, reason],
  );
  const instruments = pairList(state).map((p) => p.instrument);

  return (
    <section class="panel journal" aria-labelledby="journal-title">
      <header class="panel-head">
        <h2 id="journal-title">Journal</h2>
        <a href={tradesCsvHref(filter)} download>
          Download CSV
        </a>
      </header>
      <div class="filters">
        <label class="filter">
          Account{' '}
          <select value={account} onChange={(e) => setAccount(e.currentTarget.value as JournalAccount | '')}>
            <option value="">any</option>
            {JOURNAL_ACCOUNTS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <label class="filter">
          Instrument{' '}
          <select value={instrument} onChange={(e) => setInstrument(e.currentTarget.value)}>
            <option value="">any</option>
            {instruments.map((i) => (
              <option key={i} value={i}>
                {pairLabel(i)}
              </option>
            ))}
          </select>
        </label>
        <label class="filter">
          Exit reason{' '}
          <select value={reason} onChange={(e) => setReason(e.currentTarget.value as ExitReason | '')}>
            <option value="">any</option>
            {EXIT_REASONS.map((r) => (
              <option key={r} value={r}>
                {humanize(r)}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ListState list={trades} what="trades" />
      {trades.items.length === 0 && !trades.loading && !trades.error && <p class="empty">No closed trade matches.</p>}
      {trades.items.length > 0 && (
        <div class="scroll-x">
          <table class="grid cards journal-trades" aria-label="Journal">
            <thead>
              <tr>
                <th scope="col">Exit</th>
                <th scope="col">Account</th>
                <th scope="col">Instrument</th>
                <th scope="col">Side</th>
                <th scope="col">Lots</th>
                <th scope="col">Entry price</th>
                <th scope="col">Exit price</th>
                <th scope="col">Reason</th>
                <th scope="col">P/L</th>
                <th scope="col">R</th>
              </tr>
            </thead>
            <tbody>
              {trades.items.map((t) => (
                <tr key={t.id} data-trade-id={t.id}>
                  <td data-label="Exit">{formatDateTime(t.exit_time)}</td>
                  <td data-label="Account">{t.account}</td>
                  <td data-label="Instrument">{pairLabel(t.instrument)}</td>
                  <td data-label="Side">{t.side}</td>
                  <td data-label="Lots" class="num">
                    {t.volume_lots}
                  </td>
                  <td data-label="Entry price" class="num">
                    {formatPrice(t.entry_price, t.instrument)}
                  </td>
                  <td data-label="Exit price" class="num">
                    {formatPrice(t.exit_price, t.instrument)}
                  </td>
                  <td data-label="Reason">{humanize(t.exit_reason)}</td>
                  <td data-label="P/L" class="num">
                    {formatMoney(t.pnl)}
                  </td>
                  <td data-label="R" class="num">
                    {t.r_multiple === null ? '—' : t.r_multiple.toFixed(2)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <MoreButton list={trades} what="trades" />
    </section>
  );
}
