import { describe, expect, it } from 'vitest';
import { RETCODE } from '../../src/mt5-retcodes.js';
import { retcodeOfError } from '../../src/ctrader/retcodes.js';
import { lotsToVolume, moneyText, volumeToLots, volumeToUnits } from '../../src/ctrader/volumes.js';

const FX_LOT = 10_000_000;

describe('cTrader volumes and money', () => {
  it('turns lots into cents of units by the lot size, exactly', () => {
    expect(lotsToVolume('1', FX_LOT)).toBe(10_000_000);
    expect(lotsToVolume('0.01', FX_LOT)).toBe(100_000);
    expect(lotsToVolume('0.5', 10_000)).toBe(5_000);
  });

  it('refuses lots that are no whole number of cents, or negative', () => {
    expect(lotsToVolume('0.000000001', FX_LOT)).toBeNull();
    expect(lotsToVolume('-1', FX_LOT)).toBeNull();
    expect(lotsToVolume('abc', FX_LOT)).toBeNull();
  });

  it('reads volumes back as lots and as units', () => {
    expect(volumeToLots(2_500_000, FX_LOT)).toBe('0.25');
    expect(volumeToLots(5_000, 10_000)).toBe('0.5');
    expect(volumeToUnits(2_500_000)).toBe('25000');
    expect(volumeToUnits(150)).toBe('1.5');
  });

  it('reads money scaled by moneyDigits', () => {
    expect(moneyText(10_053_099_944, 8)).toBe('100.53099944');
    expect(moneyText(-1_250, 2)).toBe('-12.5');
  });
});

describe('cTrader refusals as MT5 retcodes', () => {
  it('maps the trading error codes and calls any other a rejection', () => {
    expect(retcodeOfError('TRADING_BAD_VOLUME')).toBe(RETCODE.INVALID_VOLUME);
    expect(retcodeOfError('TRADING_BAD_STOPS')).toBe(RETCODE.INVALID_STOPS);
    expect(retcodeOfError('NOT_ENOUGH_MONEY')).toBe(RETCODE.NO_MONEY);
    expect(retcodeOfError('MARKET_CLOSED')).toBe(RETCODE.MARKET_CLOSED);
    expect(retcodeOfError('POSITION_NOT_FOUND')).toBe(RETCODE.POSITION_CLOSED);
    expect(retcodeOfError('SOMETHING_NEW')).toBe(RETCODE.REJECT);
  });

  it('keeps a venue timeout unknown, so that nothing is sent again', () => {
    expect(retcodeOfError('TIMEOUT_ERROR')).toBe(RETCODE.TIMEOUT);
  });
});
