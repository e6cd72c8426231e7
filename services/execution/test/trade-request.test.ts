import { simulatedSymbolInfo, symbolSpec, type Quote, type SymbolInfo } from '@fxdesk/broker';
import type { AppError } from '@fxdesk/core';
import { SignalSubmissionSchema } from '@fxdesk/schemas';
import { describe, expect, it } from 'vitest';
import { buildTradeRequest } from '../src/trade-request.js';
import { signal as fixture } from './helpers.js';

/** EURUSD as the simulated terminal lists it: 5 digits, stops level 10 points, 0.01..100 lots by 0.01. */
const info: SymbolInfo = simulatedSymbolInfo(symbolSpec('EURUSD')!, 'full');
const quote: Quote = { symbol: 'EURUSD', bid: 1.085, ask: 1.0851, time: Date.parse('2026-01-05T12:00:00Z') };
const limits = { maximumVolume: '10', maxDeviationPoints: 50, magic: 880001 };

const signal = (extra: Record<string, unknown>) => SignalSubmissionSchema.parse(fixture(extra));

const build = (extra: Record<string, unknown>, symbol: SymbolInfo = info) => buildTradeRequest(signal(extra), symbol, quote, limits, 'tradingview:abc');

function failure(extra: Record<string, unknown>): { code: string; message: string } {
  try {
    build(extra);
  } catch (err) {
    return { code: (err as AppError).code, message: (err as AppError).message };
  }
  throw new Error('expected a rule violation');
}

describe('volume rules', () => {
  it('accepts a volume that is a whole number of steps within min and max', () => {
    expect(build({ volume: '1.23' }).volume).toBe('1.23');
  });
  it('rejects a volume below the symbol minimum', () => {
    expect(failure({ volume: '0.001' })).toMatchObject({ code: 'invalid_volume', message: expect.stringContaining('minimum') });
  });
  it('rejects a volume that is not a multiple of the step, with exact arithmetic', () => {
    expect(failure({ volume: '0.015' })).toMatchObject({ code: 'invalid_volume', message: expect.stringContaining('step') });
    expect(build({ volume: '0.3' }).volume).toBe('0.3');
  });
  it('rejects a volume above the symbol maximum', () => {
    expect(failure({ volume: '100.01' })).toMatchObject({ code: 'invalid_volume', message: expect.stringContaining('maximum') });
  });
  it('rejects a volume above MAXIMUM_VOLUME', () => {
    expect(failure({ volume: '10.01' })).toMatchObject({ code: 'invalid_volume', message: expect.stringContaining('MAXIMUM_VOLUME') });
    expect(build({ volume: '10' }).volume).toBe('10');
  });
});

describe('price precision', () => {
  it('rejects a price with more decimals than the symbol has digits', () => {
    expect(failure({ stop_loss: '1.080001' })).toMatchObject({ code: 'invalid_price' });
    expect(failure({ execution_type: 'limit', entry_price: '1.070001' })).toMatchObject({ code: 'invalid_price' });
  });
  it('rejects a distance that is not a whole number of points', () => {
    expect(failure({ take_profit_distance: '0.000015' })).toMatchObject({ code: 'invalid_price' });
  });
  it('ignores trailing zeros when counting decimals', () => {
    expect(build({ stop_loss: '1.0800000' }).sl).toBe('1.0800000');
  });
});

describe('risk-level rules', () => {
  it("rule 2 and 3: resolves a buy market order's distances against the ask, stop below and target above", () => {
    const request = build({ stop_loss_distance: '0.0020', take_profit_distance: '0.0040' });
    expect(request).toMatchObject({ price: '1.0851', sl: '1.0831', tp: '1.0891' });
  });
  it("rule 2 and 3: resolves a sell market order's distances against the bid, stop above and target below", () => {
    const request = build({ direction: 'sell', stop_loss_distance: '0.0020', take_profit_distance: '0.0040' });
    expect(request).toMatchObject({ price: '1.085', sl: '1.087', tp: '1.081' });
  });
  it("rule 3: resolves a pending order's distances against entry_price", () => {
    const request = build({ execution_type: 'limit', entry_price: '1.08000', stop_loss_distance: '0.001', take_profit_distance: '0.002' });
    expect(request).toMatchObject({ type: 'buy_limit', price: '1.08000', sl: '1.079', tp: '1.082' });
  });
  it('rule 1: passes an absolute leg through as given', () => {
    expect(build({ stop_loss: '1.08', take_profit_distance: '0.001' })).toMatchObject({ sl: '1.08', tp: '1.0861' });
  });
  it('rejects a distance that resolves to a price at or below zero', () => {
    expect(failure({ direction: 'sell', take_profit_distance: '2' })).toMatchObject({ code: 'invalid_stops' });
  });
});

describe('stop distance against the stops level', () => {
  it("measures a buy's stops from the bid, where the position would close", () => {
    // bid 1.08500, stops level 10 points: the stop must be at or below 1.08490.
    expect(build({ stop_loss: '1.0849' }).sl).toBe('1.0849');
    expect(failure({ stop_loss: '1.08491' })).toMatchObject({ code: 'invalid_stops' });
  });
  it("measures a sell's stops from the ask", () => {
    expect(build({ direction: 'sell', stop_loss: '1.0852' }).sl).toBe('1.0852');
    expect(failure({ direction: 'sell', stop_loss: '1.08519' })).toMatchObject({ code: 'invalid_stops' });
  });
  it('rejects a stop on the wrong side of the price', () => {
    expect(failure({ stop_loss: '1.0900' })).toMatchObject({ code: 'invalid_stops', message: expect.stringContaining('below') });
    expect(failure({ take_profit: '1.0800' })).toMatchObject({ code: 'invalid_stops', message: expect.stringContaining('above') });
  });
  it("measures a pending order's stops from its entry price", () => {
    expect(failure({ execution_type: 'stop', entry_price: '1.0900', stop_loss: '1.08995' })).toMatchObject({ code: 'invalid_stops' });
    expect(build({ execution_type: 'stop', entry_price: '1.0900', stop_loss: '1.0899' }).sl).toBe('1.0899');
  });
  it('rejects a pending entry on the wrong side of the market', () => {
    expect(failure({ execution_type: 'limit', entry_price: '1.0900' })).toMatchObject({ code: 'invalid_price' });
    expect(failure({ execution_type: 'stop', entry_price: '1.0800' })).toMatchObject({ code: 'invalid_price' });
    expect(failure({ direction: 'sell', execution_type: 'limit', entry_price: '1.0800' })).toMatchObject({ code: 'invalid_price' });
  });
});

describe('deviation, filling and expiry', () => {
  it('rejects deviation_points above MAX_DEVIATION_POINTS', () => {
    expect(failure({ deviation_points: 51 })).toMatchObject({ code: 'invalid_deviation' });
  });
  it('sends the given deviation, or MAX_DEVIATION_POINTS when none is given', () => {
    expect(build({ deviation_points: 7 }).deviation).toBe(7);
    expect(build({}).deviation).toBe(50);
  });
  it('fills market orders immediate-or-cancel and rests pending ones with RETURN', () => {
    expect(build({}).filling).toBe('IOC');
    expect(build({ execution_type: 'limit', entry_price: '1.08' }).filling).toBe('RETURN');
    expect(build({}, { ...info, fillingModes: ['FOK'] }).filling).toBe('FOK');
  });
  it('gives a pending order with expires_at a specified-time expiry in whole seconds, rounded down', () => {
    const request = build({ execution_type: 'limit', entry_price: '1.08', expires_at: '2026-01-05T13:00:00.900Z' });
    expect(request).toMatchObject({ action: 'pending', timeType: 'SPECIFIED', expiration: Date.parse('2026-01-05T13:00:00Z') / 1000 });
  });
  it('keeps a pending order without expires_at good till cancelled', () => {
    expect(build({ execution_type: 'stop', entry_price: '1.09' })).toMatchObject({ timeType: 'GTC' });
    expect(build({ execution_type: 'stop', entry_price: '1.09' }).expiration).toBeUndefined();
  });
  it('sends the magic number and the comment', () => {
    expect(build({})).toMatchObject({ action: 'deal', type: 'buy', magic: 880001, comment: 'tradingview:abc' });
  });
});
