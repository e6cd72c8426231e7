import type { BacktestSettings, FillModel } from '@fxdesk/schemas';
import { formatDateTime, formatMoney, pairLabel } from '../format.js';
import { formatRuleValue, LAB_RULES } from '../lab/rules.js';

function volumeText(volume: FillModel['volume'], riskPercent: number | undefined): string {
  if (riskPercent !== undefined) return `${riskPercent} % of equity at risk a trade`;
  return 'lots' in volume ? `${volume.lots} lots a trade` : `${volume.risk_percent} % of equity at risk a trade`;
}

/** What a backtest ran with: pairs, window, every rule setting (after the overrides), balance and fill model. */
export function RunSettings({ settings }: { settings: BacktestSettings }) {
  const fill = settings.fill_model;
  return (
    <dl class="facts run-settings">
      <div class="wide">
        <dt>Pairs</dt>
        <dd>{settings.instruments.map(pairLabel).join(', ')}</dd>
      </div>
      <div class="wide">
        <dt>Window ({settings.timeframe})</dt>
        <dd>
          {formatDateTime(settings.from)} to {formatDateTime(settings.to)}
        </dd>
      </div>
      {LAB_RULES.map((rule) => (
        <div key={rule.key} data-rule={rule.key}>
          <dt>{rule.label}</dt>
          <dd class="num">{formatRuleValue(rule, settings.rules[rule.key])}</dd>
        </div>
      ))}
      <div>
        <dt>Initial balance</dt>
        <dd>{formatMoney(settings.initial_balance, settings.account_currency)}</dd>
      </div>
      {settings.leverage !== undefined && (
        <div>
          <dt>Leverage</dt>
          <dd class="num">{settings.leverage}:1</dd>
        </div>
      )}
      <div class="wide">
        <dt>Fills</dt>
        <dd>
          spread {fill.spread_points === null ? "each candle's own (the model's default without one)" : `${fill.spread_points} points where a candle has none`}{' '}
          · slippage {fill.slippage_points} points · commission {formatMoney(fill.commission_per_lot, settings.account_currency)} a lot ·{' '}
          {volumeText(fill.volume, settings.rules.risk_percent)}
        </dd>
      </div>
      <div>
        <dt>Warm-up</dt>
        <dd>{settings.warmup_candles} candles</dd>
      </div>
    </dl>
  );
}
