import type { SymbolInfo, TradingTerminal } from '@fxdesk/broker';
import { compareDecimal, formatDecimal, parseDecimal } from '@fxdesk/primitives';
import type { SymbolTerms } from '@fxdesk/schemas';
import type { Logger } from 'pino';
import { readTerminal } from './book.js';
import type { Deadline } from './deadline.js';
import { errors } from './errors.js';

/**
 * The terms of a symbol as this service trades it: the venue's, and `order_volume_max`, the
 * largest order it sends (the venue's maximum and MAXIMUM_VOLUME, the smaller, rounded down to the step).
 */
export function symbolTermsOf(info: SymbolInfo, maximumVolume: string): SymbolTerms {
  return {
    symbol: info.symbol,
    description: info.description,
    digits: info.digits,
    contract_size: info.contractSize,
    volume_min: info.volumeMin,
    volume_max: info.volumeMax,
    volume_step: info.volumeStep,
    order_volume_max: orderVolumeMax(info.volumeMax, maximumVolume, info.volumeStep),
    stops_level: info.stopsLevel,
    freeze_level: info.freezeLevel,
    trade_mode: info.tradeMode,
    filling_modes: info.fillingModes,
    expiration_modes: info.expirationModes,
    currency_base: info.currencyBase,
    currency_profit: info.currencyProfit,
    currency_margin: info.currencyMargin,
  };
}

/** The smaller of the venue's maximum and MAXIMUM_VOLUME, rounded down to whole steps (exact decimals). */
function orderVolumeMax(venueMax: string, maximumVolume: string, step: string): string {
  const cap = parseDecimal(compareDecimal(venueMax, maximumVolume) <= 0 ? venueMax : maximumVolume);
  const unit = parseDecimal(step);
  const scale = Math.max(cap.scale, unit.scale);
  const capUnits = cap.units * 10n ** BigInt(scale - cap.scale);
  const stepUnits = unit.units * 10n ** BigInt(scale - unit.scale);
  return formatDecimal({ units: stepUnits > 0n ? (capUnits / stepUnits) * stepUnits : capUnits, scale });
}

/**
 * GET /v1/symbols/{symbol}: the venue's terms for a symbol of ALLOWED_SYMBOLS, read live (a
 * broker may change them), through the same deadline as the book's reads.
 */
export class SymbolTermsReader {
  private readonly allowed: Set<string>;

  constructor(
    private readonly terminal: TradingTerminal,
    allowedSymbols: readonly string[],
    private readonly deadline: Deadline,
    /** MAXIMUM_VOLUME, lots. */
    private readonly maximumVolume: string,
  ) {
    this.allowed = new Set(allowedSymbols);
  }

  async read(symbol: string, log: Pick<Logger, 'warn'>): Promise<SymbolTerms> {
    if (!this.allowed.has(symbol)) {
      throw errors.create('symbol_not_allowed', `symbol "${symbol}" is not in ALLOWED_SYMBOLS (exact, case-sensitive)`, {
        details: [{ path: 'params.symbol', message: 'not in ALLOWED_SYMBOLS' }],
      });
    }
    const info = await readTerminal(this.terminal, this.deadline, 'symbol_info', () => this.terminal.symbolInfo(symbol), log);
    if (!info) throw errors.create('symbol_not_allowed', `the ${this.terminal.name} terminal does not list ${symbol}`);
    return symbolTermsOf(info, this.maximumVolume);
  }
}
