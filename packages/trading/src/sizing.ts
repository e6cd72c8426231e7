/**
 * Position sizing by risk (issue 24), pure: the lots whose loss at the stop is a share of the
 * equity, from the venue's own numbers for the symbol. The live leader, the paper account and the
 * lab all size through `riskLots`, so the three send the same volume for the same signal.
 */

/** What the venue says of a symbol's volumes (MT5 `symbol_info`; an OANDA or cTrader instrument). */
export interface VolumeTerms {
  /** Units of the base currency in one lot (SYMBOL_TRADE_CONTRACT_SIZE). */
  contractSize: number;
  /** Lots, as the venue's exact decimal strings. */
  volumeMin: string;
  volumeMax: string;
  volumeStep: string;
  /**
   * The least distance of a stop or target from the price at the fill, in points
   * (SYMBOL_TRADE_STOPS_LEVEL); absent: not known, only their sides are checked.
   */
  stopsLevel?: number;
}

export interface RiskSizingInput {
  /** Equity in the account currency. */
  equity: number;
  /** Share of the equity lost at the stop, in percent (RISK_PERCENT). */
  riskPercent: number;
  entry: number;
  stop: number;
  terms: VolumeTerms;
  /** One unit of the symbol's profit (quote) currency in the account currency, at the signal's time. */
  quoteToAccount: number;
  /** MAXIMUM_VOLUME: the desk's own ceiling per order, lots. */
  maximumLots?: number;
}

export const SIZING_SKIPS = ['volume_rounds_to_zero', 'volume_below_minimum', 'no_risk_at_stop', 'no_conversion_rate'] as const;
export type SizingSkip = (typeof SIZING_SKIPS)[number];

/**
 * `lots`: a decimal string on the volume step. `skipped`: why no order goes out, with the figures
 * a trader needs to see why.
 */
export type SizingResult = { lots: string; riskMoney: number } | { skipped: SizingSkip; detail: string };

/** Decimal places of a decimal string ("0.01" → 2, "1" → 0). */
function placesOf(decimal: string): number {
  const dot = decimal.indexOf('.');
  return dot === -1 ? 0 : decimal.length - dot - 1;
}

/** A decimal string as a whole number of 10^-places (exact for the venue's short decimals). */
function unitsOf(decimal: string, places: number): number {
  const [whole = '0', fraction = ''] = decimal.split('.');
  return Number(whole) * 10 ** places + Number(fraction.padEnd(places, '0') || '0');
}

/** A symbol's volumes as whole numbers of 10^-places lots, on the finest of its three decimals. */
interface VolumeGrid {
  places: number;
  /** 10^places. */
  scale: number;
  step: number;
  min: number;
  max: number;
}

/**
 * The grids of the terms seen, by object: a run or a desk sizes every entry of a symbol on one
 * terms object, so its decimals are read once, not at every signal (the lab sizes tens of
 * thousands a year). Terms are the venue's answer and never change in place: a new answer is a new object.
 */
const grids = new WeakMap<VolumeTerms, VolumeGrid>();

function gridOf(terms: VolumeTerms): VolumeGrid {
  let grid = grids.get(terms);
  if (grid === undefined) {
    const places = Math.max(placesOf(terms.volumeStep), placesOf(terms.volumeMin), placesOf(terms.volumeMax));
    grid = {
      places,
      scale: 10 ** places,
      step: unitsOf(terms.volumeStep, places),
      min: unitsOf(terms.volumeMin, places),
      max: unitsOf(terms.volumeMax, places),
    };
    grids.set(terms, grid);
  }
  return grid;
}

/** The loss of one lot from `entry` to `stop`, in the account currency. */
export function lossPerLot(entry: number, stop: number, contractSize: number, quoteToAccount: number): number {
  return Math.abs(entry - stop) * contractSize * quoteToAccount;
}

/**
 * The lots that lose `riskPercent` of `equity` at the stop: rounded DOWN to the volume step and
 * capped at the venue's maximum and MAXIMUM_VOLUME. A size below the venue's minimum is skipped,
 * never raised to it: the minimum would risk more than `riskPercent` (services/strategy/README.md,
 * "Sizing").
 */
export function riskLots(input: RiskSizingInput): SizingResult {
  const { equity, riskPercent, entry, stop, terms, quoteToAccount } = input;
  if (!(quoteToAccount > 0) || !Number.isFinite(quoteToAccount)) {
    return { skipped: 'no_conversion_rate', detail: 'no rate converts the symbol’s profit currency to the account’s' };
  }
  const perLot = lossPerLot(entry, stop, terms.contractSize, quoteToAccount);
  if (!(perLot > 0) || !Number.isFinite(perLot)) return { skipped: 'no_risk_at_stop', detail: `the stop ${stop} is at the entry ${entry}` };
  const budget = (equity * riskPercent) / 100;
  const { places, scale, step, min, max: venueMax } = gridOf(terms);
  const deskMax = input.maximumLots === undefined ? venueMax : Math.floor(input.maximumLots * scale + 1e-9);
  // Whole steps, rounded down; the 1e-9 keeps 0.29 (28.999… steps in binary) from becoming 0.28.
  const wanted = Math.floor(budget / perLot / (step / scale) + 1e-9) * step;
  if (wanted <= 0) {
    return {
      skipped: 'volume_rounds_to_zero',
      detail: `${riskPercent}% of ${equity.toFixed(2)} is ${budget.toFixed(2)}; one lot loses ${perLot.toFixed(2)} at the stop`,
    };
  }
  // The cap, itself on the step (a MAXIMUM_VOLUME off the step rounds down).
  const cap = Math.floor(Math.min(venueMax, deskMax) / step) * step;
  const units = Math.min(wanted, cap);
  if (units < min) {
    return {
      skipped: 'volume_below_minimum',
      detail: `the size is ${(units / scale).toFixed(places)} lots; the minimum ${terms.volumeMin} would lose ${riskedOf(min / scale, perLot)}, more than ${budget.toFixed(2)}`,
    };
  }
  return { lots: (units / scale).toFixed(places), riskMoney: Number(riskedOf(units / scale, perLot)) };
}

/** What `lots` lose at the stop, to the cent. */
function riskedOf(lots: number, perLot: number): string {
  return (lots * perLot).toFixed(2);
}
