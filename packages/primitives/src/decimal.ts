/**
 * Exact decimal arithmetic on decimal strings, for the rules that money depends on (volume
 * step, price precision, stop distances). Values are scaled BigInts, so `0.1 + 0.2` is `0.3`.
 */

const DECIMAL = /^([+-])?(\d+)(?:\.(\d+))?$/;

export interface ScaledDecimal {
  units: bigint;
  scale: number;
}

export function isDecimalString(value: string): boolean {
  return DECIMAL.test(value);
}

export function parseDecimal(value: string): ScaledDecimal {
  const m = DECIMAL.exec(value);
  if (!m) throw new RangeError(`not a decimal: ${JSON.stringify(value)}`);
  const fraction = m[3] ?? '';
  const units = BigInt((m[2] as string) + fraction);
  return { units: m[1] === '-' ? -units : units, scale: fraction.length };
}

/** Digits after the point, ignoring trailing zeros ("1.2300" has 2). */
export function decimalPlaces(value: string): number {
  const fraction = parseDecimalFraction(value);
  return fraction.replace(/0+$/, '').length;
}

function parseDecimalFraction(value: string): string {
  const m = DECIMAL.exec(value);
  if (!m) throw new RangeError(`not a decimal: ${JSON.stringify(value)}`);
  return m[3] ?? '';
}

function align(a: ScaledDecimal, b: ScaledDecimal): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.units * 10n ** BigInt(scale - a.scale), b.units * 10n ** BigInt(scale - b.scale), scale];
}

export function formatDecimal(d: ScaledDecimal): string {
  const negative = d.units < 0n;
  let digits = (negative ? -d.units : d.units).toString();
  if (d.scale > 0) {
    digits = digits.padStart(d.scale + 1, '0');
    let text = `${digits.slice(0, -d.scale)}.${digits.slice(-d.scale)}`.replace(/\.?0+$/, '');
    if (text === '') text = '0';
    return negative && text !== '0' ? `-${text}` : text;
  }
  return negative && digits !== '0' ? `-${digits}` : digits;
}

export function compareDecimal(a: string, b: string): -1 | 0 | 1 {
  const [x, y] = align(parseDecimal(a), parseDecimal(b));
  return x < y ? -1 : x > y ? 1 : 0;
}

export function addDecimal(a: string, b: string): string {
  const [x, y, scale] = align(parseDecimal(a), parseDecimal(b));
  return formatDecimal({ units: x + y, scale });
}

export function subtractDecimal(a: string, b: string): string {
  const [x, y, scale] = align(parseDecimal(a), parseDecimal(b));
  return formatDecimal({ units: x - y, scale });
}

export function multiplyDecimal(a: string, b: string): string {
  const x = parseDecimal(a);
  const y = parseDecimal(b);
  return formatDecimal({ units: x.units * y.units, scale: x.scale + y.scale });
}

/** Whether `value` is an exact whole multiple of `step` (step > 0). */
export function isMultipleOf(value: string, step: string): boolean {
  const [x, y] = align(parseDecimal(value), parseDecimal(step));
  if (y <= 0n) throw new RangeError('step must be positive');
  return x % y === 0n;
}

/** Rounds a decimal string to `digits` places, half away from zero, exactly. */
export function roundDecimal(value: string, digits: number): string {
  const d = parseDecimal(value);
  if (d.scale <= digits) return formatDecimal(d);
  const divisor = 10n ** BigInt(d.scale - digits);
  const magnitude = d.units < 0n ? -d.units : d.units;
  let rounded = magnitude / divisor;
  if ((magnitude % divisor) * 2n >= divisor) rounded += 1n;
  return formatDecimal({ units: d.units < 0n ? -rounded : rounded, scale: digits });
}

/**
 * Writes a computed number with at most `digits` places, as a broker price reads. The binary
 * noise is dropped first (15 significant digits), so 151.2345 rounds to 151.235 at 3 places
 * where `toFixed` would give 151.234.
 */
export function decimalFromNumber(value: number, digits: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  const magnitude = Math.abs(value);
  const text = magnitude !== 0 && (magnitude < 1e-6 || magnitude >= 1e15) ? value.toFixed(digits) : plain(value.toPrecision(15));
  return roundDecimal(text, digits);
}

/** `toPrecision` output without exponent or trailing zeros. */
function plain(text: string): string {
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}
