import { describe, expect, it } from 'vitest';
import { instrumentNameOf, instrumentOf, summaryOf, termsOf, transactionOf } from '../../src/metaapi/account-records.js';
import { DealSchema, SymbolSpecificationSchema, type WireAccountInformation } from '../../src/metaapi/wire.js';

const spec = (extra: Record<string, unknown> = {}) =>
  SymbolSpecificationSchema.parse({
    symbol: 'EURUSD',
    digits: 5,
    contractSize: 100_000,
    minVolume: 0.01,
    maxVolume: 100,
    volumeStep: 0.01,
    baseCurrency: 'EUR',
    profitCurrency: 'USD',
    ...extra,
  });
const deal = (extra: Record<string, unknown>) => DealSchema.parse({ id: '1001', time: '2026-01-07T12:00:00.000Z', profit: 0, ...extra });
const info: WireAccountInformation = { currency: 'USD', balance: 10_000, equity: 10_650, margin: 100, freeMargin: 10_550, leverage: 100, credit: 500 };

describe('MetaApi records in OANDA terms', () => {
  it('keeps the name of a symbol that is not exactly its two currencies', () => {
    expect(instrumentNameOf(spec())).toBe('EUR_USD');
    expect(instrumentNameOf(spec({ symbol: 'EURUSD.m' }))).toBe('EURUSD.m');
    expect(instrumentNameOf(spec({ symbol: 'US500', baseCurrency: 'USD', profitCurrency: 'USD' }))).toBe('US500');
  });

  it('reads gold as a metal and an index as a CFD', () => {
    const gold = spec({ symbol: 'XAUUSD', digits: 2, contractSize: 100, baseCurrency: 'XAU', priceCalculationMode: 'SYMBOL_CALC_MODE_FOREX' });
    const index = spec({
      symbol: 'US500',
      digits: 1,
      contractSize: 1,
      baseCurrency: 'USD',
      profitCurrency: 'USD',
      priceCalculationMode: 'SYMBOL_CALC_MODE_CFD',
    });
    expect(instrumentOf(gold, 100)).toMatchObject({ type: 'METAL', minimumTradeSize: '1', pipLocation: -2 });
    expect(instrumentOf(index, 100)).toMatchObject({ type: 'CFD', displayPrecision: 1 });
  });

  it("leaves a broker's credit out of the net asset value", () => {
    const summary = summaryOf('a', { info, positions: [], orders: [], deals: [], asOf: '2026-01-07T12:00:00.000Z' });
    expect(summary).toMatchObject({ balance: '10000', unrealizedPL: '150', nav: '10150', lastTransactionId: '0' });
  });

  it('reads a balance deal as a transfer of funds and a deal with no OANDA counterpart by its MT5 type', () => {
    expect(transactionOf(deal({ type: 'DEAL_TYPE_BALANCE', profit: 10_000 }), undefined)).toMatchObject({
      type: 'TRANSFER_FUNDS',
      instrument: null,
      units: null,
    });
    expect(transactionOf(deal({ type: 'DEAL_TYPE_COMMISSION', profit: -3 }), undefined).type).toBe('DEAL_TYPE_COMMISSION');
  });

  it('reads a stop-loss exit as a fill of the stop-loss order, units of the closing side', () => {
    const exit = deal({
      type: 'DEAL_TYPE_SELL',
      entryType: 'DEAL_ENTRY_OUT',
      reason: 'DEAL_REASON_SL',
      symbol: 'EURUSD',
      volume: 0.25,
      price: 1.081,
      profit: -42.5,
    });
    expect(transactionOf(exit, termsOf(spec()))).toMatchObject({
      type: 'ORDER_FILL',
      instrument: 'EUR_USD',
      units: '-25000',
      price: '1.08100',
      pl: '-42.5',
      reason: 'STOP_LOSS_ORDER',
    });
  });

  it('keeps a fill of a symbol the broker no longer specifies, with no units', () => {
    const old = deal({ type: 'DEAL_TYPE_BUY', symbol: 'OLDPAIR', volume: 1, price: 2.5, profit: 0 });
    expect(transactionOf(old, undefined)).toMatchObject({ type: 'ORDER_FILL', instrument: 'OLDPAIR', units: null, price: '2.5' });
  });
});
