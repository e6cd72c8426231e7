import type { Timeframe } from '@fxdesk/schemas';
import type { ChartSummary } from '../chart/chart-data.js';
import { formatOscillator, formatPrice } from '../format.js';

/** What the chart draws, in words: each layer with its latest value (the figure's caption). */
export function ChartLegend({ summary, instrument, timeframe }: { summary: ChartSummary; instrument: string; timeframe: Timeframe }) {
  const price = (value: number) => formatPrice(value, instrument);
  const { supertrend, openZone, profile, stochrsi, picked } = summary;
  return (
    <ul class="legend" aria-label="Chart layers">
      <li data-layer="candles">
        {summary.candles} {timeframe} candles with volume (UTC)
      </li>
      <li data-layer="supertrend">
        Supertrend{' '}
        {supertrend ? (
          <span class={supertrend.direction === 1 ? 'up' : 'down'}>
            {supertrend.direction === 1 ? 'bullish' : 'bearish'} {price(supertrend.value)}
          </span>
        ) : (
          'warming up'
        )}
      </li>
      <li data-layer="fvg">
        <span class="swatch zone" aria-hidden="true" /> Fair value gaps: {summary.zones}
        {openZone ? ` (open ${openZone.type} ${price(openZone.low)}–${price(openZone.high)})` : ''}
      </li>
      <li data-layer="profile">
        {profile ? (
          <>
            <span class="poc">POC {price(profile.poc)}</span> · VAH {price(profile.vah)} · VAL {price(profile.val)}
          </>
        ) : (
          'Volume profile warming up'
        )}
      </li>
      <li data-layer="stochrsi">Stoch RSI {stochrsi ? `%K ${formatOscillator(stochrsi.k)} · %D ${formatOscillator(stochrsi.d)}` : 'warming up'}</li>
      <li data-layer="signals">
        {summary.signals} {summary.signals === 1 ? 'signal' : 'signals'} on the chart
        {picked && (
          <>
            {' '}
            · {picked.type}: <span class="entry">entry {price(picked.entry_price)}</span> · <span class="down">stop {price(picked.stop_loss)}</span> ·{' '}
            <span class="up">target {price(picked.take_profit)}</span>
          </>
        )}
      </li>
    </ul>
  );
}
