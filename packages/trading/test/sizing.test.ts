import { describe, expect, it } from 'vitest';
import { riskLots, type RiskSizingInput, type VolumeTerms } from '../src/sizing.js';

/** The usual FX terms: 100 000 units a lot, 0.01 to 100 lots in steps of 0.01. */
const FX: VolumeTerms = { contractSize: 100_000, volumeMin: '0.01', volumeMax: '100', volumeStep: '0.01' };
const size = (input: Partial<RiskSizingInput>) => riskLots({ equity: 10_000, riskPercent: 1, entry: 1.1, stop: 1.098, terms: FX, quoteToAccount: 1, ...input });

// Each figure below is worked by hand in its comment: 1 % of 10 000 is 100 in the account currency.
describe('sizing by risk, worked by hand', () => {
  it('EUR/USD on a USD account: a 20-pip stop loses 200 USD a lot, so 100 USD buys 0.50 lots', () => {
    // 0.00200 × 100 000 × 1 = 200 USD a lot; 100 / 200 = 0.5.
    expect(size({})).toEqual({ lots: '0.50', riskMoney: 100 });
  });

  it('USD/JPY on a USD account: a 50-sen stop loses 50 000 JPY a lot, 333.33 USD at 150, so 0.30 lots', () => {
    // 0.500 × 100 000 = 50 000 JPY; ÷ 150.000 = 333.33 USD a lot; 100 / 333.33 = 0.30.
    expect(size({ entry: 150, stop: 149.5, quoteToAccount: 1 / 150 })).toEqual({ lots: '0.30', riskMoney: 100 });
  });

  it('EUR/GBP on a USD account: a 10-pip stop loses 100 GBP a lot, 125 USD at GBP/USD 1.25, so 0.80 lots', () => {
    // 0.00100 × 100 000 = 100 GBP; × 1.25 = 125 USD a lot; 100 / 125 = 0.8.
    expect(size({ entry: 0.86, stop: 0.859, quoteToAccount: 1.25 })).toEqual({ lots: '0.80', riskMoney: 100 });
  });

  it('EUR/USD on an EUR account: 200 USD a lot is 181.82 EUR at 1.10, so 100 EUR buys 0.55 lots', () => {
    // 200 / 1.10 = 181.818 EUR a lot; 100 / 181.818 = 0.55; 0.55 × 181.818 = 100.00 EUR at risk.
    expect(size({ quoteToAccount: 1 / 1.1 })).toEqual({ lots: '0.55', riskMoney: 100 });
  });

  it('USD/JPY on an EUR account: 50 000 JPY a lot is 303.03 EUR at EUR/JPY 165, so 0.33 lots', () => {
    // 50 000 / 165 = 303.03 EUR a lot; 100 / 303.03 = 0.33 (0.330 exactly: 0.33 × 303.03 = 100.00).
    expect(size({ entry: 150, stop: 149.5, quoteToAccount: 1 / 165 })).toEqual({ lots: '0.33', riskMoney: 100 });
  });

  it('EUR/GBP on an EUR account: 100 GBP a lot is 116.28 EUR at 0.86, so 0.86 lots', () => {
    // 100 / 0.86 = 116.279 EUR a lot; 100 / 116.279 = 0.86.
    expect(size({ entry: 0.86, stop: 0.859, quoteToAccount: 1 / 0.86 })).toEqual({ lots: '0.86', riskMoney: 100 });
  });

  it('rounds down to the step: 0.6756 lots is 0.67, never 0.68', () => {
    // 100 / (0.00200 × 100 000 × 0.74) = 100 / 148 = 0.6756… → 0.67; 0.67 × 148 = 99.16 at risk.
    expect(size({ quoteToAccount: 0.74 })).toEqual({ lots: '0.67', riskMoney: 99.16 });
  });

  it('skips a stop so wide that the size rounds to zero, with the figures, and never sends the minimum', () => {
    // 0.1 % of 1 000 = 1 USD; 0.02000 × 100 000 = 2 000 USD a lot; 1 / 2 000 = 0.0005 lots → 0.
    const result = size({ equity: 1000, riskPercent: 0.1, stop: 1.08 });
    expect(result).toEqual({ skipped: 'volume_rounds_to_zero', detail: '0.1% of 1000.00 is 1.00; one lot loses 2000.00 at the stop' });
  });

  it('skips a size on the step but below the venue’s minimum rather than risk more than asked', () => {
    // 0.50 lots wanted; the venue's minimum is 1 lot, which would lose 200 USD, twice the 100.
    const result = size({ terms: { ...FX, volumeMin: '1.00' } });
    expect(result).toMatchObject({ skipped: 'volume_below_minimum' });
    expect('detail' in result && result.detail).toContain('would lose 200.00, more than 100.00');
  });

  it('caps at MAXIMUM_VOLUME and at the venue’s maximum, each rounded down to the step', () => {
    // A 1-pip stop: 10 USD a lot, 100 / 10 = 10 lots wanted.
    const tight = { stop: 1.0999 };
    expect(size(tight)).toMatchObject({ lots: '10.00' });
    expect(size({ ...tight, maximumLots: 2.555 })).toEqual({ lots: '2.55', riskMoney: 25.5 });
    expect(size({ ...tight, terms: { ...FX, volumeMax: '5' } })).toMatchObject({ lots: '5.00' });
  });

  it('reads steps other than 0.01: 0.1-lot steps, and whole units as one venue counts them', () => {
    expect(size({ terms: { ...FX, volumeMin: '0.1', volumeStep: '0.1' }, quoteToAccount: 0.74 })).toMatchObject({ lots: '0.6' });
    // Units rather than lots (contract size 1, step 1): 100 / (0.002 × 1) = 50 000 units.
    expect(size({ terms: { contractSize: 1, volumeMin: '1', volumeMax: '100000000', volumeStep: '1' } })).toEqual({ lots: '50000', riskMoney: 100 });
  });

  it('skips without a conversion rate or a distance to the stop, rather than size on a guess', () => {
    expect(size({ quoteToAccount: Number.NaN })).toMatchObject({ skipped: 'no_conversion_rate' });
    expect(size({ quoteToAccount: 0 })).toMatchObject({ skipped: 'no_conversion_rate' });
    expect(size({ stop: 1.1 })).toMatchObject({ skipped: 'no_risk_at_stop' });
  });
});
