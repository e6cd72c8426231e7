import { ManualClock } from '@fxdesk/primitives';
import { describe, expect, it } from 'vitest';
import { SimulatedMarket } from '../src/simulated/market.js';
import { SYMBOL_SPECS, instrumentToSymbol, symbolToInstrument } from '../src/simulated/symbols.js';
import { SATURDAY_NOON, WEDNESDAY_NOON, makeMarket } from './fixtures.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const FRIDAY_CLOSE = Date.UTC(2026, 0, 9, 22, 0, 0);
const SUNDAY_OPEN = Date.UTC(2026, 0, 11, 22, 0, 0);

describe('symbol table', () => {
  it('lists at least 20 FX pairs and XAUUSD', () => {
    expect(SYMBOL_SPECS.filter((s) => s.type === 'CURRENCY').length).toBeGreaterThanOrEqual(20);
    expect(SYMBOL_SPECS.find((s) => s.symbol === 'XAUUSD')).toMatchObject({ type: 'METAL', digits: 2, contractSize: 100 });
  });

  it('gives 5 digits to FX pairs, 3 to JPY quotes and 2 to gold', () => {
    for (const spec of SYMBOL_SPECS) {
      const expected = spec.symbol === 'XAUUSD' ? 2 : spec.quote === 'JPY' ? 3 : 5;
      expect(spec.digits, spec.symbol).toBe(expected);
      expect(spec.point).toBeCloseTo(10 ** -expected, 12);
      if (spec.type === 'CURRENCY') expect(spec.contractSize).toBe(100_000);
    }
  });

  it('maps broker symbols to OANDA instruments and back', () => {
    expect(symbolToInstrument('EURUSD')).toBe('EUR_USD');
    expect(instrumentToSymbol('EUR_USD')).toBe('EURUSD');
    expect(instrumentToSymbol('XAU_USD')).toBe('XAUUSD');
    for (const spec of SYMBOL_SPECS) expect(instrumentToSymbol(symbolToInstrument(spec.symbol)!)).toBe(spec.symbol);
  });

  it('answers undefined for names it does not list', () => {
    expect(symbolToInstrument('EURXYZ')).toBeUndefined();
    expect(instrumentToSymbol('EURUSD')).toBeUndefined();
    expect(makeMarket().market.spec('NOPE')).toBeUndefined();
  });

  it('gives every symbol its own stable id', () => {
    expect(new Set(SYMBOL_SPECS.map((s) => s.symbolId)).size).toBe(SYMBOL_SPECS.length);
    expect(SYMBOL_SPECS.find((s) => s.symbol === 'EURUSD')!.symbolId).toBe(1);
  });

  it('has realistic base prices and spreads', () => {
    const eurusd = SYMBOL_SPECS.find((s) => s.symbol === 'EURUSD')!;
    expect(eurusd.basePrice).toBeGreaterThan(0.9);
    expect(eurusd.basePrice).toBeLessThan(1.4);
    expect(SYMBOL_SPECS.find((s) => s.symbol === 'USDJPY')!.basePrice).toBeGreaterThan(90);
    for (const spec of SYMBOL_SPECS) expect(spec.typicalSpreadPoints).toBeGreaterThan(0);
  });
});

describe('ticks', () => {
  it('are identical for two markets with the same seed and settings', () => {
    const a = makeMarket().market;
    const b = makeMarket().market;
    for (const symbol of ['EURUSD', 'USDJPY', 'XAUUSD']) {
      expect(a.ticksBetween(symbol, WEDNESDAY_NOON, WEDNESDAY_NOON + 10 * MINUTE)).toEqual(
        b.ticksBetween(symbol, WEDNESDAY_NOON, WEDNESDAY_NOON + 10 * MINUTE),
      );
    }
  });

  it('differ for another seed', () => {
    const a = makeMarket().market.ticksBetween('EURUSD', WEDNESDAY_NOON, WEDNESDAY_NOON + MINUTE);
    const b = makeMarket({ seed: 'another-seed' }).market.ticksBetween('EURUSD', WEDNESDAY_NOON, WEDNESDAY_NOON + MINUTE);
    expect(a).not.toEqual(b);
  });

  it('do not depend on the order in which they are asked for', () => {
    const { market } = makeMarket();
    const later = market.ticksBetween('EURUSD', WEDNESDAY_NOON + DAY, WEDNESDAY_NOON + DAY + MINUTE);
    market.bars('EURUSD', 'H1', 30);
    const earlier = market.ticksBetween('EURUSD', WEDNESDAY_NOON, WEDNESDAY_NOON + MINUTE);
    const fresh = makeMarket().market;
    expect(earlier).toEqual(fresh.ticksBetween('EURUSD', WEDNESDAY_NOON, WEDNESDAY_NOON + MINUTE));
    expect(later).toEqual(fresh.ticksBetween('EURUSD', WEDNESDAY_NOON + DAY, WEDNESDAY_NOON + DAY + MINUTE));
  });

  it('sit on the slot grid with bid below ask, both at the symbol digits', () => {
    const { market } = makeMarket({ tickIntervalMs: 250 });
    for (const spec of market.symbols()) {
      const ticks = market.ticksBetween(spec.symbol, WEDNESDAY_NOON, WEDNESDAY_NOON + MINUTE);
      expect(ticks.length, spec.symbol).toBeGreaterThan(0);
      for (const tick of ticks) {
        expect(tick.time % 250).toBe(0);
        expect(tick.bid).toBe(Number(tick.bid.toFixed(spec.digits)));
        expect(tick.ask).toBe(Number(tick.ask.toFixed(spec.digits)));
        const spreadPoints = Math.round((tick.ask - tick.bid) / spec.point);
        expect(spreadPoints).toBeGreaterThanOrEqual(1);
        expect(spreadPoints).toBeLessThan(spec.typicalSpreadPoints * 8);
      }
    }
  });

  it('report the same latest tick whichever way they are read', () => {
    const { market } = makeMarket();
    const at = WEDNESDAY_NOON + 1234;
    const window = market.ticksBetween('GBPJPY', at - 5 * MINUTE, at + 1);
    expect(market.lastTick('GBPJPY', at)).toEqual(window.at(-1));
  });

  it('vary in volume: busier in the London–New York overlap than late in the Asian session', () => {
    const { market } = makeMarket();
    const count = (from: number) => market.ticksBetween('EURUSD', from, from + HOUR).length;
    const overlap = count(Date.UTC(2026, 0, 7, 13));
    const asia = count(Date.UTC(2026, 0, 7, 3));
    expect(overlap).toBeGreaterThan(asia * 1.5);
    const perMinute = new Set(market.bars('EURUSD', 'M1', 60, Date.UTC(2026, 0, 7, 14)).map((b) => b.tickVolume));
    expect(perMinute.size).toBeGreaterThan(10);
  });

  it('keep crosses consistent with their USD legs', () => {
    const { market } = makeMarket();
    for (let t = WEDNESDAY_NOON; t < WEDNESDAY_NOON + 30 * DAY; t += 13 * HOUR) {
      const cross = market.midAt('EURJPY', t);
      const legs = market.midAt('EURUSD', t) * market.midAt('USDJPY', t);
      expect(Math.abs(cross / legs - 1)).toBeLessThan(0.001);
    }
  });

  it('can be computed for any instant, past or future', () => {
    const { market } = makeMarket();
    for (const at of [Date.UTC(2001, 5, 6, 12), Date.UTC(2045, 2, 1, 12)]) {
      const tick = market.lastTick('EURUSD', at);
      expect(tick).not.toBeNull();
      expect(tick!.time).toBeLessThanOrEqual(at);
      expect(tick!.bid).toBeGreaterThan(0);
    }
  });

  it('convert currencies at the mid of the latest ticks, directly or through USD', () => {
    const { market } = makeMarket();
    expect(market.rate('USD', 'USD')).toBe(1);
    const eurusd = market.lastTick('EURUSD')!;
    expect(market.rate('EUR', 'USD')).toBeCloseTo((eurusd.bid + eurusd.ask) / 2, 10);
    expect(market.rate('USD', 'EUR')).toBeCloseTo(2 / (eurusd.bid + eurusd.ask), 10);
    expect(market.rate('CAD', 'CHF')).toBeCloseTo(market.rate('CAD', 'USD')! * market.rate('USD', 'CHF')!, 10);
  });

  it('refuses a symbol it does not list', () => {
    expect(() => makeMarket().market.lastTick('NOPE')).toThrow(RangeError);
  });

  it('refuses a tick interval outside 10 ms to 60 s', () => {
    const clock = new ManualClock();
    expect(() => new SimulatedMarket({ seed: 's', tickIntervalMs: 5, marketHours: true, clock })).toThrow(/tickIntervalMs/);
    expect(() => new SimulatedMarket({ seed: 's', tickIntervalMs: 1.5, marketHours: true, clock })).toThrow(/tickIntervalMs/);
  });
});

describe('market hours', () => {
  it('trade from Sunday 22:00 to Friday 22:00 UTC', () => {
    const { market } = makeMarket();
    expect(market.isOpen(FRIDAY_CLOSE - 1)).toBe(true);
    expect(market.isOpen(FRIDAY_CLOSE)).toBe(false);
    expect(market.isOpen(SATURDAY_NOON)).toBe(false);
    expect(market.isOpen(SUNDAY_OPEN - 1)).toBe(false);
    expect(market.isOpen(SUNDAY_OPEN)).toBe(true);
    expect(market.isOpen(WEDNESDAY_NOON)).toBe(true);
  });

  it('have no ticks while closed', () => {
    const { market } = makeMarket();
    expect(market.ticksBetween('EURUSD', FRIDAY_CLOSE, SUNDAY_OPEN)).toEqual([]);
    const around = market.ticksBetween('EURUSD', FRIDAY_CLOSE - MINUTE, SUNDAY_OPEN + MINUTE);
    expect(around.length).toBeGreaterThan(0);
    expect(around.every((t) => t.time < FRIDAY_CLOSE || t.time >= SUNDAY_OPEN)).toBe(true);
  });

  it("answer Friday's last tick on the weekend", () => {
    const { market } = makeMarket();
    const tick = market.lastTick('EURUSD', SATURDAY_NOON)!;
    expect(tick.time).toBeLessThan(FRIDAY_CLOSE);
    expect(tick.time).toBeGreaterThan(FRIDAY_CLOSE - 5 * MINUTE);
    expect(market.lastTick('EURUSD', SUNDAY_OPEN - 1)).toEqual(tick);
  });

  it('can be switched off: then the market ticks all week', () => {
    const { market } = makeMarket({ marketHours: false });
    expect(market.isOpen(SATURDAY_NOON)).toBe(true);
    expect(market.ticksBetween('EURUSD', SATURDAY_NOON, SATURDAY_NOON + MINUTE).length).toBeGreaterThan(0);
  });
});

describe('price path over two simulated years', () => {
  const market = makeMarket({ seed: 'long-run' }).market;
  const start = Date.UTC(2026, 0, 1);
  const daily = (symbol: string) => Array.from({ length: 730 }, (_, d) => market.midAt(symbol, start + d * DAY));

  it('stays within a plausible band around each symbol price', () => {
    for (const spec of market.symbols()) {
      // The walks revert to the base over months: gold, the most volatile, has a log-sd of about 0.07 around it.
      const logRatios = daily(spec.symbol).map((p) => Math.abs(Math.log(p / spec.basePrice)));
      expect(Math.max(...logRatios), spec.symbol).toBeLessThan(0.3);
    }
    const eurusd = daily('EURUSD');
    expect(Math.min(...eurusd)).toBeGreaterThan(0.95);
    expect(Math.max(...eurusd)).toBeLessThan(1.25);
  });

  it('moves like a market: a daily volatility near the configured one, and a real range', () => {
    for (const symbol of ['EURUSD', 'USDJPY', 'XAUUSD']) {
      const spec = market.spec(symbol)!;
      const prices = daily(symbol);
      const returns = prices.slice(1).map((p, i) => Math.log(p / prices[i]!));
      const mean = returns.reduce((a, b) => a + b, 0) / returns.length;
      const sd = Math.sqrt(returns.reduce((a, r) => a + (r - mean) ** 2, 0) / returns.length);
      const target = spec.annualVolatility / Math.sqrt(365.25);
      expect(sd / target, symbol).toBeGreaterThan(0.6);
      expect(sd / target, symbol).toBeLessThan(1.6);
      expect(Math.max(...prices) / Math.min(...prices), symbol).toBeGreaterThan(1.03);
    }
  });
});
