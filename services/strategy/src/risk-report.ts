/** GET /risk's figures of one account: each limit of the risk settings beside its use now. */
import type { AccountRisk } from '@fxdesk/schemas';
import { RiskBook } from '@fxdesk/trading';
import type { RiskView } from './desk-risk.js';
import type { RiskSettings } from './risk-settings.js';

const iso = (ms: number) => new Date(ms).toISOString();
const cents = (v: number) => Math.round(v * 100) / 100;
const percentOf = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 10_000) / 100 : null);

export function accountRiskOf(view: RiskView, settings: RiskSettings, nowMs: number): AccountRisk {
  const { state, equity } = view;
  const { limits } = settings;
  // The book's own netting of the open positions: a long EUR_USD is + EUR and − USD.
  const book = new RiskBook({ limits, candleMs: 1 });
  view.open.forEach((entry, i) => book.opened(String(i), entry));
  const byCurrency = [...book.exposure()]
    .filter(([, lots]) => Math.abs(lots) > 1e-9)
    .map(([currency, lots]) => ({ currency, net_lots: Math.round(lots * 1e6) / 1e6 }))
    .sort((a, b) => Math.abs(b.net_lots) - Math.abs(a.net_lots) || a.currency.localeCompare(b.currency));
  const loss = equity && state.dayStartEquity !== null ? state.dayStartEquity - equity.value : null;
  const drawdown = equity && state.equityPeak !== null ? state.equityPeak - equity.value : null;
  const cooldownUntil = state.cooldownUntil;
  return {
    account: view.account,
    halted: state.halt !== null,
    halt: state.halt && { reason: state.halt.reason, at: iso(state.halt.at), detail: state.halt.detail },
    equity: equity && { value: equity.value, at: iso(equity.ms) },
    open_trades: { open: view.open.length, limit: limits.maxOpenTrades, one_per_pair: limits.onePositionPerPair },
    exposure: { limit_lots: limits.maxCurrencyExposureLots, by_currency: byCurrency },
    daily_loss: {
      day: state.day,
      start_equity: state.dayStartEquity,
      loss: loss === null ? null : cents(loss),
      loss_percent: loss === null || state.dayStartEquity === null ? null : percentOf(loss, state.dayStartEquity),
      limit_percent: limits.dailyLossLimitPercent,
    },
    drawdown: {
      peak: state.equityPeak,
      drawdown: drawdown === null ? null : cents(drawdown),
      drawdown_percent: drawdown === null || state.equityPeak === null ? null : percentOf(drawdown, state.equityPeak),
      limit_percent: limits.maxDrawdownPercent,
    },
    cooldown: {
      losses_in_a_row: state.consecutiveLosses,
      after_losses: limits.cooldown?.losses ?? null,
      candles: limits.cooldown?.candles ?? null,
      until: cooldownUntil === null ? null : iso(cooldownUntil),
      active: cooldownUntil !== null && nowMs < cooldownUntil,
    },
  };
}
