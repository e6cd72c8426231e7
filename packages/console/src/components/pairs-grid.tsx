import type { PairRecord } from '@fxdesk/schemas';
import type { Profile } from '../desk-state.js';
import { formatAgo, formatOscillator, formatPips, formatPrice, humanize, pairLabel } from '../format.js';
import { Link } from '../router.js';
import { routeHref } from '../routes.js';
import { useNow } from '../use-desk.js';

export function Trend({ direction }: { direction: 1 | -1 | undefined }) {
  if (direction === undefined) return <span class="muted">warming up</span>;
  return direction === 1 ? <span class="up">▲ bullish</span> : <span class="down">▼ bearish</span>;
}

/** Every monitored pair: live price, Supertrend direction, %K/%D, distance to the POC, latest signal. */
export function PairsGrid({ pairs, profiles }: { pairs: PairRecord[]; profiles: Record<string, Profile> }) {
  const now = useNow(1000);
  if (pairs.length === 0) {
    return (
      <section class="panel" aria-labelledby="pairs-title">
        <h2 id="pairs-title">Pairs</h2>
        <p class="empty">No pairs yet: start the strategy to monitor some.</p>
      </section>
    );
  }
  return (
    <section class="panel pairs" aria-labelledby="pairs-title">
      <h2 id="pairs-title">Pairs</h2>
      <table class="grid cards" aria-labelledby="pairs-title">
        <thead>
          <tr>
            <th scope="col">Pair</th>
            <th scope="col">Price</th>
            <th scope="col">Supertrend</th>
            <th scope="col">%K / %D</th>
            <th scope="col">To POC</th>
            <th scope="col">Latest signal</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {pairs.map((p) => {
            const profile = profiles[p.instrument];
            return (
              <tr key={p.instrument} data-instrument={p.instrument}>
                <th scope="row" data-label="Pair">
                  <Link href={routeHref({ page: 'pair', instrument: p.instrument, timeframe: null, signalId: null })}>{pairLabel(p.instrument)}</Link>
                </th>
                <td data-label="Price" class="num price" title={p.last_data_at ? `as of ${formatAgo(p.last_data_at, now)}` : 'no data yet'}>
                  {formatPrice(p.current_price, p.instrument)}
                </td>
                <td data-label="Supertrend">
                  <Trend direction={p.supertrend?.direction} />
                </td>
                <td data-label="%K / %D" class="num">
                  {p.stochrsi ? `${formatOscillator(p.stochrsi.k)} / ${formatOscillator(p.stochrsi.d)}` : '—'}
                </td>
                <td data-label="To POC" class="num" title={profile ? `POC ${formatPrice(profile.poc, p.instrument)}` : 'profile not read yet'}>
                  {formatPips(p.current_price, profile?.poc, p.instrument)}
                </td>
                <td data-label="Latest signal">
                  {p.last_signal ? (
                    <span class={p.last_signal.type === 'LONG' ? 'up' : 'down'}>
                      {p.last_signal.type} @ {formatPrice(p.last_signal.entry_price, p.instrument)} · {formatAgo(p.last_signal.time, now)}
                    </span>
                  ) : (
                    <span class="muted">none yet</span>
                  )}
                </td>
                <td data-label="State">
                  <span class={`state state-${p.status}`}>{humanize(p.status)}</span>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
