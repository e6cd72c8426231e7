import { z } from 'zod';

/** An instrument name `BASE_QUOTE` (OANDA style): `EUR_USD`, `XAU_USD`. */
export const InstrumentNameSchema = z
  .string()
  .regex(/^[A-Z0-9]{2,10}_[A-Z0-9]{2,10}$/, { message: 'expected an instrument name like EUR_USD' })
  .meta({ description: 'Instrument name BASE_QUOTE, e.g. EUR_USD', example: 'EUR_USD' });

/**
 * A broker symbol exactly as the venue spells it: case-sensitive, printable ASCII, may contain
 * inner spaces or suffixes (`EURUSD`, `EURUSD.m`, `US 500`).
 */
export const BrokerSymbolSchema = z
  .string()
  .min(1)
  .max(32)
  .regex(/^[\x21-\x7E](?:[\x20-\x7E]*[\x21-\x7E])?$/, { message: 'expected a broker symbol (printable characters, no outer spaces)' })
  .meta({ description: 'Broker symbol, exact and case-sensitive', example: 'EURUSD' });

/** A decimal written as a string, as money and prices travel at the API edge. */
export const DecimalStringSchema = z
  .string()
  .regex(/^-?[0-9]{1,15}(\.[0-9]{1,10})?$/, { message: 'expected a decimal string like "1.0850"' })
  .meta({ description: 'Decimal number as a string', example: '1.0850' });

/** A non-negative decimal string (volumes, prices, distances). */
export const UnsignedDecimalStringSchema = z
  .string()
  .regex(/^[0-9]{1,15}(\.[0-9]{1,10})?$/, { message: 'expected an unsigned decimal string like "0.10"' })
  .meta({ description: 'Unsigned decimal number as a string', example: '0.10' });

/**
 * A strictly positive decimal string. JSON Schema's exclusiveMinimum applies to numbers only, so
 * the document states "greater than zero" for the string as "not all zeros".
 */
export const PositiveDecimalStringSchema = UnsignedDecimalStringSchema.refine((v) => /[1-9]/.test(v), {
  message: 'must be greater than zero',
}).meta({ description: 'Decimal number greater than zero, as a string', example: '0.10', not: { pattern: '^0{1,15}(\\.0{1,10})?$' } });

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isRealDate(value: string): boolean {
  const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})/.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number);
  if (month! < 1 || month! > 12 || day! < 1 || day! > DAYS_IN_MONTH[month! - 1]!) return false;
  if (month === 2 && day === 29 && !(year! % 4 === 0 && (year! % 100 !== 0 || year! % 400 === 0))) return false;
  return hour! <= 23 && minute! <= 59 && second! <= 59 && !Number.isNaN(Date.parse(value));
}

/** An RFC 3339 date-time that must carry a zone (`Z` or `±hh:mm`); fractions allowed. */
export const Rfc3339Schema = z
  .string()
  .regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?([Zz]|[+-][0-9]{2}:[0-9]{2})$/, {
    message: 'expected an RFC 3339 date-time with a time zone, e.g. 2026-01-05T12:00:00Z',
  })
  .refine(isRealDate, { message: 'not a real date-time' })
  .meta({ description: 'RFC 3339 date-time with a zone', example: '2026-01-05T12:00:00Z', format: 'date-time' });

/** An ISO 8601 UTC timestamp as the services write them. */
export const IsoTimestampSchema = z.string().meta({ description: 'ISO 8601 UTC timestamp', example: '2026-01-05T12:00:00.000Z' });

export const TIMEFRAMES = ['M1', 'M5', 'M15', 'M30', 'H1', 'H4', 'D1'] as const;
export const TimeframeSchema = z.enum(TIMEFRAMES).meta({ description: 'Bar timeframe' });
export type Timeframe = z.infer<typeof TimeframeSchema>;

/** Length of each timeframe's bar in seconds. */
export const TIMEFRAME_SECONDS: Record<Timeframe, number> = {
  M1: 60,
  M5: 300,
  M15: 900,
  M30: 1800,
  H1: 3600,
  H4: 14_400,
  D1: 86_400,
};

/** Start (epoch seconds, UTC) of the bar that contains `epochSeconds`. */
export function barStart(epochSeconds: number, timeframe: Timeframe): number {
  const size = TIMEFRAME_SECONDS[timeframe];
  return Math.floor(epochSeconds / size) * size;
}

export const UuidSchema = z.uuid({ message: 'expected a UUID' });
