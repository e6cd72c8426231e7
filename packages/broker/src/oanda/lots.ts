import { compareDecimal, isDecimalString, isMultipleOf, multiplyDecimal } from '@fxdesk/primitives';

/**
 * Lots (MT5's volume) ↔ units (OANDA's order size), and MT5 symbols ↔ v20 instrument names.
 *
 * OANDA sizes every order in units of the instrument's base ("The quantity requested to be
 * filled by the Market Order. A positive number of units results in a long Order, and a negative
 * number of units results in a short Order"). MT5 sizes it in lots of the symbol's contract:
 * 1 lot of an FX pair is 100 000 units of its base currency, 1 lot of gold (XAU) 100 oz, of silver
 * (XAG) 5 000 oz, and 1 lot of anything else (CFDs) 1 unit. Sell volumes become negative units.
 */
export interface LotSize {
  /** Units in one lot (MT5 contract size). */
  unitsPerLot: number;
  /** One unit in lots, exactly. */
  lotsPerUnit: string;
}

const FX_LOT: LotSize = { unitsPerLot: 100_000, lotsPerUnit: '0.00001' };

export function lotSizeOf(instrument: { name: string; type: string }): LotSize {
  if (instrument.type === 'CURRENCY') return FX_LOT;
  if (instrument.name.startsWith('XAU_')) return { unitsPerLot: 100, lotsPerUnit: '0.01' };
  if (instrument.name.startsWith('XAG_')) return { unitsPerLot: 5_000, lotsPerUnit: '0.0002' };
  return { unitsPerLot: 1, lotsPerUnit: '1' };
}

/** Lots as unsigned units, exact. */
export function unitsOfLots(lots: string, size: LotSize): string {
  return trimZeros(multiplyDecimal(lots, String(size.unitsPerLot)));
}

/** Units (signed or not) as unsigned lots, exact. */
export function lotsOfUnits(units: string, size: LotSize): string {
  const unsigned = units.startsWith('-') ? units.slice(1) : units;
  return trimZeros(multiplyDecimal(unsigned, size.lotsPerUnit));
}

/** Whether `units` is a positive decimal on the instrument's unit precision (tradeUnitsPrecision decimal places). */
export function isOnUnitStep(units: string, tradeUnitsPrecision: number): boolean {
  if (!isDecimalString(units) || compareDecimal(units, '0') <= 0) return false;
  return isMultipleOf(units, tradeUnitsPrecision > 0 ? `0.${'0'.repeat(tradeUnitsPrecision - 1)}1` : `1${'0'.repeat(-tradeUnitsPrecision)}`);
}

/** `EUR_USD` → `EURUSD`: the symbol an MT5 terminal shows for a v20 instrument. */
export function symbolOfInstrument(instrument: string): string {
  return instrument.replace('_', '');
}

function trimZeros(value: string): string {
  return value.includes('.') ? value.replace(/0+$/, '').replace(/\.$/, '') : value;
}
