/**
 * The simulated terminal's per-symbol trading rules (MT5 `symbol_info`), derived from the
 * market's symbol table.
 */
import type { SymbolInfo, SymbolTradeMode } from '../terminal.js';
import type { SymbolSpec, SymbolTier } from './symbols.js';

/** Largest volume one market deal fills at once; the rest of an IOC order is cancelled (10010). */
export const LIQUIDITY_LOTS: Record<SymbolTier, string> = { major: '20', cross: '10', metal: '5' };
const VOLUME_MAX_LOTS: Record<SymbolTier, string> = { major: '100', cross: '100', metal: '50' };

/** MT5 `symbol_info` of a simulated symbol: stops level one typical spread, freeze level half of it. */
export function simulatedSymbolInfo(spec: SymbolSpec, tradeMode: SymbolTradeMode): SymbolInfo {
  return {
    symbol: spec.symbol,
    description: spec.description,
    digits: spec.digits,
    point: spec.point,
    contractSize: spec.contractSize,
    volumeMin: '0.01',
    volumeMax: VOLUME_MAX_LOTS[spec.tier],
    volumeStep: '0.01',
    stopsLevel: spec.typicalSpreadPoints,
    freezeLevel: Math.round(spec.typicalSpreadPoints / 2),
    fillingModes: ['FOK', 'IOC', 'RETURN'],
    expirationModes: ['GTC', 'DAY', 'SPECIFIED', 'SPECIFIED_DAY'],
    tradeMode,
    currencyBase: spec.base,
    currencyProfit: spec.quote,
    currencyMargin: spec.base,
  };
}
