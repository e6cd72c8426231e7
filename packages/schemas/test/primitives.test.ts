import { describe, expect, it } from 'vitest';
import {
  barStart,
  BrokerSymbolSchema,
  DecimalStringSchema,
  InstrumentNameSchema,
  PositiveDecimalStringSchema,
  Rfc3339Schema,
  TIMEFRAME_SECONDS,
} from '../src/primitives.js';

const ok = (schema: { safeParse(v: unknown): { success: boolean } }, v: unknown) => schema.safeParse(v).success;

describe('InstrumentNameSchema', () => {
  it('accepts BASE_QUOTE names', () => {
    for (const v of ['EUR_USD', 'XAU_USD', 'SPX500_USD']) expect(ok(InstrumentNameSchema, v)).toBe(true);
  });
  it('rejects other spellings', () => {
    for (const v of ['EURUSD', 'eur_usd', 'EUR-USD', 'EUR_', '_USD', 'EUR_USD_X', '']) expect(ok(InstrumentNameSchema, v)).toBe(false);
  });
});

describe('BrokerSymbolSchema', () => {
  it('accepts exact venue spellings, suffixes and inner spaces', () => {
    for (const v of ['EURUSD', 'EURUSD.m', 'US 500', 'eurusd']) expect(ok(BrokerSymbolSchema, v)).toBe(true);
  });
  it('rejects outer spaces, control characters and overlong names', () => {
    for (const v of [' EURUSD', 'EURUSD ', 'EUR\nUSD', '', 'X'.repeat(33)]) expect(ok(BrokerSymbolSchema, v)).toBe(false);
  });
});

describe('decimal strings', () => {
  it('accept plain decimals', () => {
    for (const v of ['1', '1.0850', '-0.5', '0.00001']) expect(ok(DecimalStringSchema, v)).toBe(true);
  });
  it('reject numbers, exponents and stray characters', () => {
    for (const v of [1.5, '1e3', '.5', '1.', ' 1', '1,5', 'NaN', '1.12345678901']) expect(ok(DecimalStringSchema, v)).toBe(false);
  });
  it('require a positive value where zero makes no sense', () => {
    expect(ok(PositiveDecimalStringSchema, '0.00')).toBe(false);
    expect(ok(PositiveDecimalStringSchema, '-1')).toBe(false);
    expect(ok(PositiveDecimalStringSchema, '0.01')).toBe(true);
  });
});

describe('Rfc3339Schema', () => {
  it('accepts date-times with Z or an offset, with or without fractions', () => {
    for (const v of ['2026-01-05T12:00:00Z', '2026-01-05T12:00:00.123456Z', '2026-01-05T14:00:00+02:00', '2024-02-29T00:00:00Z']) {
      expect(ok(Rfc3339Schema, v)).toBe(true);
    }
  });
  it('rejects a date-time without a zone', () => {
    expect(ok(Rfc3339Schema, '2026-01-05T12:00:00')).toBe(false);
  });
  it('rejects dates that do not exist', () => {
    for (const v of ['2026-02-30T00:00:00Z', '2025-02-29T00:00:00Z', '2026-13-01T00:00:00Z', '2026-01-01T24:00:00Z']) expect(ok(Rfc3339Schema, v)).toBe(false);
  });
  it('rejects other formats', () => {
    for (const v of ['2026-01-05', '1767614400', '2026-01-05 12:00:00Z', 'yesterday']) expect(ok(Rfc3339Schema, v)).toBe(false);
  });
});

describe('timeframes', () => {
  it('give each bar its length', () => {
    expect(TIMEFRAME_SECONDS).toEqual({ M1: 60, M5: 300, M15: 900, M30: 1800, H1: 3600, H4: 14400, D1: 86400 });
  });
  it('place an instant in its bar', () => {
    const t = Date.UTC(2026, 0, 5, 13, 47, 12) / 1000;
    expect(barStart(t, 'M5')).toBe(Date.UTC(2026, 0, 5, 13, 45) / 1000);
    expect(barStart(t, 'H4')).toBe(Date.UTC(2026, 0, 5, 12) / 1000);
    expect(barStart(t, 'D1')).toBe(Date.UTC(2026, 0, 5) / 1000);
  });
});
