/**
 * The simulated market's symbol table: 22 FX pairs and XAUUSD, with MT5-style digits and
 * contract sizes, OANDA-style instrument names and cTrader-style stable symbol ids.
 */

export type SymbolType = 'CURRENCY' | 'METAL';
/** Liquidity tier: decides margin rate and the simulated terminal's book depth. */
export type SymbolTier = 'major' | 'cross' | 'metal';

export interface SymbolSpec {
  /** Broker symbol, `EURUSD`. */
  symbol: string;
  /** OANDA instrument name, `EUR_USD`. */
  instrument: string;
  /** Stable integer id (cTrader `symbolId`); never reused. */
  symbolId: number;
  description: string;
  base: string;
  quote: string;
  type: SymbolType;
  tier: SymbolTier;
  /** Decimal places of a price: 5, 3 for JPY quotes, 2 for XAUUSD. */
  digits: number;
  /** Smallest price change, 10^-digits. */
  point: number;
  /** Exponent of a pip: -4 for EURUSD, -2 for USDJPY and XAUUSD. */
  pipLocation: number;
  /** Spread in points outside busy or widened moments. */
  typicalSpreadPoints: number;
  /** Centre of the simulated price: the market wanders around it and always comes back. */
  basePrice: number;
  /** Approximate annualized volatility of the simulated price (0.07 = 7 %). */
  annualVolatility: number;
  /** Units of base currency (ounces for XAUUSD) in one lot. */
  contractSize: number;
  /** Probability that the symbol ticks in a slot at an average session hour. */
  tickActivity: number;
}

/**
 * Each currency's value in USD follows a common US-dollar factor (weight `usdBeta`) plus its own
 * noise, so crosses stay consistent with their USD legs and majors move together as they do.
 */
export interface CurrencyModel {
  code: string;
  name: string;
  /** Price of one unit in USD at the centre of the simulation. */
  usdValue: number;
  /** Weight of the common US-dollar factor in the currency's value. */
  usdBeta: number;
  /** Annualized volatility of the currency's own noise. */
  ownVolatility: number;
}

/** Annualized volatility of the common US-dollar factor. */
export const USD_FACTOR_VOLATILITY = 0.06;

export const CURRENCIES: readonly CurrencyModel[] = [
  { code: 'USD', name: 'US Dollar', usdValue: 1, usdBeta: 0, ownVolatility: 0 },
  { code: 'EUR', name: 'Euro', usdValue: 1.085, usdBeta: 1, ownVolatility: 0.035 },
  { code: 'GBP', name: 'Pound Sterling', usdValue: 1.27, usdBeta: 0.9, ownVolatility: 0.05 },
  { code: 'JPY', name: 'Japanese Yen', usdValue: 1 / 150, usdBeta: 0.7, ownVolatility: 0.07 },
  { code: 'CHF', name: 'Swiss Franc', usdValue: 1 / 0.88, usdBeta: 0.95, ownVolatility: 0.045 },
  { code: 'AUD', name: 'Australian Dollar', usdValue: 0.66, usdBeta: 1, ownVolatility: 0.06 },
  { code: 'CAD', name: 'Canadian Dollar', usdValue: 1 / 1.36, usdBeta: 0.6, ownVolatility: 0.045 },
  { code: 'NZD', name: 'New Zealand Dollar', usdValue: 0.61, usdBeta: 1, ownVolatility: 0.065 },
  { code: 'XAU', name: 'Gold', usdValue: 2350, usdBeta: 0.8, ownVolatility: 0.13 },
];

const CURRENCY_BY_CODE = new Map(CURRENCIES.map((c) => [c.code, c]));

export function currencyModel(code: string): CurrencyModel | undefined {
  return CURRENCY_BY_CODE.get(code);
}

// symbolId, symbol, tier, typical spread (points), tick activity
const PAIRS: readonly [number, string, SymbolTier, number, number][] = [
  [1, 'EURUSD', 'major', 10, 0.75],
  [2, 'GBPUSD', 'major', 14, 0.65],
  [3, 'USDJPY', 'major', 12, 0.7],
  [4, 'USDCHF', 'major', 15, 0.5],
  [5, 'AUDUSD', 'major', 12, 0.55],
  [6, 'USDCAD', 'major', 16, 0.55],
  [7, 'NZDUSD', 'major', 18, 0.45],
  [8, 'EURGBP', 'cross', 15, 0.45],
  [9, 'EURJPY', 'cross', 18, 0.55],
  [10, 'GBPJPY', 'cross', 28, 0.55],
  [11, 'EURCHF', 'cross', 20, 0.35],
  [12, 'AUDJPY', 'cross', 20, 0.45],
  [13, 'EURAUD', 'cross', 25, 0.4],
  [14, 'EURCAD', 'cross', 25, 0.35],
  [15, 'GBPCHF', 'cross', 30, 0.3],
  [16, 'CADJPY', 'cross', 25, 0.3],
  [17, 'CHFJPY', 'cross', 30, 0.3],
  [18, 'AUDNZD', 'cross', 30, 0.3],
  [19, 'NZDJPY', 'cross', 25, 0.3],
  [20, 'GBPAUD', 'cross', 35, 0.35],
  [21, 'AUDCAD', 'cross', 25, 0.3],
  [22, 'EURNZD', 'cross', 40, 0.3],
  [23, 'XAUUSD', 'metal', 30, 0.8],
];

function requireCurrency(code: string): CurrencyModel {
  const model = CURRENCY_BY_CODE.get(code);
  if (!model) throw new Error(`symbol table names unknown currency ${code}`);
  return model;
}

/** Volatility of log(base/quote) under the factor model. */
function pairVolatility(base: CurrencyModel, quote: CurrencyModel): number {
  const factorWeight = quote.usdBeta - base.usdBeta;
  return Math.sqrt((factorWeight * USD_FACTOR_VOLATILITY) ** 2 + base.ownVolatility ** 2 + quote.ownVolatility ** 2);
}

function buildSpec([symbolId, symbol, tier, typicalSpreadPoints, tickActivity]: (typeof PAIRS)[number]): SymbolSpec {
  const base = requireCurrency(symbol.slice(0, 3));
  const quote = requireCurrency(symbol.slice(3));
  const isMetal = tier === 'metal';
  const digits = isMetal ? 2 : quote.code === 'JPY' ? 3 : 5;
  const price = base.usdValue / quote.usdValue;
  return {
    symbol,
    instrument: `${base.code}_${quote.code}`,
    symbolId,
    description: `${base.name} vs ${quote.name}`,
    base: base.code,
    quote: quote.code,
    type: isMetal ? 'METAL' : 'CURRENCY',
    tier,
    digits,
    point: 1 / 10 ** digits,
    pipLocation: isMetal ? -2 : -(digits - 1),
    typicalSpreadPoints,
    basePrice: Number(price.toFixed(digits)),
    annualVolatility: Number(pairVolatility(base, quote).toFixed(4)),
    contractSize: isMetal ? 100 : 100_000,
    tickActivity,
  };
}

/** Every symbol of the simulated market, in table order. */
export const SYMBOL_SPECS: readonly SymbolSpec[] = Object.freeze(PAIRS.map(buildSpec));

const BY_SYMBOL = new Map(SYMBOL_SPECS.map((s) => [s.symbol, s]));
const BY_INSTRUMENT = new Map(SYMBOL_SPECS.map((s) => [s.instrument, s]));

/** The spec of a broker symbol (`EURUSD`), or undefined when the market does not list it. */
export function symbolSpec(symbol: string): SymbolSpec | undefined {
  return BY_SYMBOL.get(symbol);
}

/** `EURUSD` → `EUR_USD`; undefined for a symbol the market does not list. */
export function symbolToInstrument(symbol: string): string | undefined {
  return BY_SYMBOL.get(symbol)?.instrument;
}

/** `EUR_USD` → `EURUSD`; undefined for an instrument the market does not list. */
export function instrumentToSymbol(instrument: string): string | undefined {
  return BY_INSTRUMENT.get(instrument)?.symbol;
}
