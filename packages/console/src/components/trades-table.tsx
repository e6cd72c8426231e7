import type { LabTrade, Timeframe } from '@fxdesk/schemas';
import { useMemo, useState } from 'preact/hooks';
import { tradeKey } from '../chart/chart-data.js';
import { formatDateTime, formatHeld, formatMoney, formatPrice, humanize, pairLabel } from '../format.js';
import { TIMEFRAME_SECONDS } from '../market-time.js';

const SHOWN = 50;

interface TradesTableProps {
  trades: LabTrade[];
  currency: string;
  /** The backtest's candles. */
  timeframe: Timeframe;
  /** The trade the chart is on. */
  selectedKey: string | null;
  /** Charts the trade (its candles read when the chart does not hold them). */
  onPick: (trade: LabTrade) => void;
}

/** A backtest's trades, newest first (the chart opens on the newest), fifty at a time; each row's entry charts its trade. */
export function TradesTable({ trades, currency, timeframe, selectedKey, onPick }: TradesTableProps) {
  const [shown, setShown] = useState(SHOWN);
  const newestFirst = useMemo(() => [...trades].reverse(), [trades]);
  return (
    <>
      <table class="grid cards trades" aria-label="Trades">
        <thead>
          <tr>
            <th scope="col">Entry</th>
            <th scope="col">Side</th>
            <th scope="col">Entry price</th>
            <th scope="col">Exit</th>
            <th scope="col">Exit price</th>
            <th scope="col">Reason</th>
            <th scope="col">Lots</th>
            <th scope="col">P/L</th>
            <th scope="col">R</th>
            <th scope="col">Held</th>
          </tr>
        </thead>
        <tbody>
          {newestFirst.slice(0, shown).map((t) => {
            const key = tradeKey(t);
            return (
              <tr key={key} data-entry-time={t.entry_time} aria-current={key === selectedKey ? 'true' : undefined}>
                <td data-label="Entry">
                  <button
                    type="button"
                    class="link"
                    onClick={() => onPick(t)}
                    aria-label={`${t.side} ${pairLabel(t.instrument)} of ${formatDateTime(t.entry_time)} on the chart`}
                  >
                    {formatDateTime(t.entry_time).replace(' UTC', '')}
                  </button>
                </td>
                <td data-label="Side" class={t.side === 'LONG' ? 'up' : 'down'}>
                  {t.side}
                </td>
                <td data-label="Entry price" class="num">
                  {formatPrice(t.entry_price, t.instrument)}
                </td>
                <td data-label="Exit">{formatDateTime(t.exit_time).replace(' UTC', '')}</td>
                <td data-label="Exit price" class="num">
                  {formatPrice(t.exit_price, t.instrument)}
                </td>
                <td data-label="Reason">{humanize(t.exit_reason)}</td>
                <td data-label="Lots" class="num">
                  {t.volume_lots.toFixed(2)}
                </td>
                <td data-label="P/L" class={`num ${t.pnl > 0 ? 'up' : t.pnl < 0 ? 'down' : ''}`}>
                  {formatMoney(t.pnl, currency)}
                </td>
                <td data-label="R" class="num">
                  {t.r_multiple.toFixed(2)}
                </td>
                <td data-label="Held" class="num">
                  {formatHeld(t.entry_time, t.exit_time, TIMEFRAME_SECONDS[timeframe])}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {trades.length > shown && (
        <button type="button" class="secondary more" onClick={() => setShown((n) => n + SHOWN)}>
          More trades ({trades.length - shown} left)
        </button>
      )}
    </>
  );
}
