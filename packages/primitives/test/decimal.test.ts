import { describe, expect, it } from 'vitest';
import {
  addDecimal,
  compareDecimal,
  decimalFromNumber,
  decimalPlaces,
  isDecimalString,
  isMultipleOf,
  multiplyDecimal,
  roundDecimal,
  subtractDecimal,
} from '../src/decimal.js';

describe('decimal arithmetic', () => {
  it('adds exactly where floating point does not', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(addDecimal('0.1', '0.2')).toBe('0.3');
  });

  it('subtracts across scales and signs', () => {
    expect(subtractDecimal('1.08500', '0.0025')).toBe('1.0825');
    expect(subtractDecimal('0.5', '1.25')).toBe('-0.75');
    expect(subtractDecimal('1.5', '1.5')).toBe('0');
  });

  it('multiplies exactly', () => {
    expect(multiplyDecimal('0.07', '3')).toBe('0.21');
    expect(multiplyDecimal('-1.5', '0.2')).toBe('-0.3');
  });

  it('compares values of different scales', () => {
    expect(compareDecimal('1.10', '1.1')).toBe(0);
    expect(compareDecimal('1.09999', '1.1')).toBe(-1);
    expect(compareDecimal('-0.1', '-0.2')).toBe(1);
  });

  it('tells whether a volume sits on the step', () => {
    expect(isMultipleOf('0.07', '0.01')).toBe(true);
    expect(isMultipleOf('0.075', '0.01')).toBe(false);
    expect(isMultipleOf('1.5', '0.5')).toBe(true);
    expect(isMultipleOf('0.3', '0.1')).toBe(true);
    expect(() => isMultipleOf('1', '0')).toThrow();
  });

  it('counts significant places, ignoring trailing zeros', () => {
    expect(decimalPlaces('1.08500')).toBe(3);
    expect(decimalPlaces('2')).toBe(0);
    expect(decimalPlaces('0.00001')).toBe(5);
  });

  it('writes a number at a price precision', () => {
    expect(decimalFromNumber(1.0850000000001, 5)).toBe('1.085');
    expect(decimalFromNumber(151.2345, 3)).toBe('151.235');
    expect(decimalFromNumber(-1.00005, 4)).toBe('-1.0001');
    expect(decimalFromNumber(0, 5)).toBe('0');
    expect(() => decimalFromNumber(Number.NaN, 2)).toThrow();
  });

  it('rounds decimal text half away from zero', () => {
    expect(roundDecimal('1.23456', 4)).toBe('1.2346');
    expect(roundDecimal('1.23454', 4)).toBe('1.2345');
    expect(roundDecimal('-2.5', 0)).toBe('-3');
    expect(roundDecimal('0.5', 2)).toBe('0.5');
  });

  it('accepts only plain decimal text', () => {
    for (const ok of ['1', '-1.5', '0.00', '+2']) expect(isDecimalString(ok)).toBe(true);
    for (const bad of ['1e5', '.5', '1.', 'NaN', '', ' 1', '0x10']) expect(isDecimalString(bad)).toBe(false);
  });
});
