import { LAB_SKIP_REASONS, type BacktestMetrics, type LabSkipReason } from '@fxdesk/schemas';
import { pairLabel } from '../format.js';

/** How the page names each reason a signal was not traded. */
export const SKIP_LABELS: Record<LabSkipReason, string> = {
  position_open: 'Position already open on the pair',
  invalid_stops: 'Stops the broker would refuse at the fill',
  max_open_trades: 'Max open trades',
  currency_exposure: 'Exposure per currency',
  cooldown: 'Cooldown after losses',
  daily_loss_limit: 'Halted: daily loss limit',
  max_drawdown: 'Halted: max drawdown',
  volume_rounds_to_zero: 'Size rounds to zero',
  volume_below_minimum: "Size below the venue's minimum",
  no_risk_at_stop: 'Stop at the entry',
  insufficient_margin: 'Not enough free margin',
  end_of_data: 'Signal on the last candle',
};

/**
 * The signals a backtest did not trade, by reason (each limit its own row), overall and per pair;
 * only the reasons that skipped one. Nothing for a run before issue 24 (no counts) or none skipped.
 */
export function SkipsTable({ skipped }: { skipped: BacktestMetrics['skipped'] }) {
  if (!skipped) return null;
  const reasons = LAB_SKIP_REASONS.filter((r) => skipped.overall[r] > 0);
  if (reasons.length === 0) return null;
  const pairs = Object.keys(skipped.per_pair).sort();
  return (
    <div class="scroll-x">
      <table class="grid skips" aria-label="Signals not traded">
        <thead>
          <tr>
            <th scope="col">Not traded</th>
            <th scope="col" class="num">
              Overall
            </th>
            {pairs.map((p) => (
              <th key={p} scope="col" class="num">
                {pairLabel(p)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {reasons.map((r) => (
            <tr key={r} data-skip={r}>
              <th scope="row">{SKIP_LABELS[r]}</th>
              <td class="num" data-column="overall">
                {skipped.overall[r]}
              </td>
              {pairs.map((p) => (
                <td key={p} class="num" data-column={p}>
                  {skipped.per_pair[p]?.[r] ?? 0}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
