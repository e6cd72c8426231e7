import { formatDecimal, isDecimalString, multiplyDecimal, parseDecimal } from '@fxdesk/primitives';

/**
 * cTrader counts volume "in cents" of units ("1000 in protocol means 10.00 units",
 * ProtoOANewOrderReq.volume) and a symbol's `lotSize` in the same cents: an FX lot of 100 000
 * units is 10 000 000. Money is an integer scaled by `moneyDigits`.
 */

/** Lots (an exact decimal) as protocol volume, or null when they are not a whole number of cents. */
export function lotsToVolume(lots: string, lotSize: number): number | null {
  if (!isDecimalString(lots) || lots.startsWith('-')) return null;
  const { units, scale } = parseDecimal(multiplyDecimal(lots, String(lotSize)));
  const divisor = 10n ** BigInt(scale);
  if (units % divisor !== 0n) return null;
  const volume = Number(units / divisor);
  return Number.isSafeInteger(volume) ? volume : null;
}

/** Protocol volume as lots, exact to 8 decimal places (a lot size that is not a power of ten rounds down there). */
export function volumeToLots(volume: number, lotSize: number): string {
  return formatDecimal({ units: (BigInt(volume) * 10n ** 8n) / BigInt(lotSize), scale: 8 });
}

/** Protocol volume as units (cents / 100), an exact decimal. */
export function volumeToUnits(volume: number): string {
  return formatDecimal({ units: BigInt(volume), scale: 2 });
}

/** A money integer as its decimal string: 1005309 at 2 digits is "10053.09". */
export function moneyText(value: number, moneyDigits: number): string {
  return formatDecimal({ units: BigInt(value), scale: moneyDigits });
}

/** A money integer as a number of the account currency. */
export function moneyValue(value: number, moneyDigits: number): number {
  return value / 10 ** moneyDigits;
}
