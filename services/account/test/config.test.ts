import { ConfigError, loadConfig } from '@fxdesk/core';
import { describe, expect, it } from 'vitest';
import { AccountConfigSchema } from '../src/config.js';

const base = { INTERNAL_API_KEY: 'a-long-enough-key' };

describe('account configuration', () => {
  it('defaults to the simulated broker on port 3000 with a 300 s instrument cache', () => {
    const config = loadConfig(AccountConfigSchema, base);
    expect(config).toMatchObject({
      BROKER: 'simulated',
      PORT: 3000,
      INSTRUMENTS_CACHE_TTL_SECONDS: 300,
      BROKER_TIMEOUT_MS: 10_000,
      SIM_ACCOUNT_BALANCE: '100000',
      SIM_ACCOUNT_CURRENCY: 'USD',
      OANDA_ENVIRONMENT: 'practice',
    });
  });

  it('requires the OANDA token and account id when BROKER=oanda, naming both', () => {
    expect(() => loadConfig(AccountConfigSchema, { ...base, BROKER: 'oanda' })).toThrow(
      /OANDA_API_TOKEN: is required when BROKER=oanda; OANDA_ACCOUNT_ID: is required when BROKER=oanda/,
    );
  });

  it('requires the execution service’s key with EXECUTION_URL, and refuses a URL that is not http(s)', () => {
    expect(() => loadConfig(AccountConfigSchema, { ...base, EXECUTION_URL: 'http://127.0.0.1:8001' })).toThrow(
      /EXECUTION_API_KEY: is required when EXECUTION_URL is set/,
    );
    expect(() => loadConfig(AccountConfigSchema, { ...base, EXECUTION_URL: 'ftp://x', EXECUTION_API_KEY: 'exec-key-123' })).toThrow(/EXECUTION_URL/);
    expect(loadConfig(AccountConfigSchema, { ...base, EXECUTION_URL: 'http://127.0.0.1:8001', EXECUTION_API_KEY: 'exec-key-123' })).toMatchObject({
      BROKER: 'simulated',
      EXECUTION_URL: 'http://127.0.0.1:8001',
    });
  });

  it('accepts a complete OANDA configuration', () => {
    const config = loadConfig(AccountConfigSchema, {
      ...base,
      BROKER: 'oanda',
      OANDA_API_TOKEN: 'token',
      OANDA_ACCOUNT_ID: '101-004-1435156-001',
      OANDA_ENVIRONMENT: 'live',
    });
    expect(config).toMatchObject({ BROKER: 'oanda', OANDA_ENVIRONMENT: 'live' });
  });

  it('refuses a malformed OANDA account id', () => {
    expect(() => loadConfig(AccountConfigSchema, { ...base, BROKER: 'oanda', OANDA_API_TOKEN: 't', OANDA_ACCOUNT_ID: 'my-account' })).toThrow(
      /OANDA_ACCOUNT_ID: expected an OANDA v20 account id/,
    );
  });

  it('refuses a BROKER that is no venue', () => {
    expect(() => loadConfig(AccountConfigSchema, { ...base, BROKER: 'ib' })).toThrow(/BROKER: .*"metaapi"/);
  });

  it('refuses an environment other than practice or live', () => {
    expect(() => loadConfig(AccountConfigSchema, { ...base, OANDA_ENVIRONMENT: 'sandbox' })).toThrow(ConfigError);
  });

  it('refuses a simulated account currency the simulated market does not price', () => {
    expect(() => loadConfig(AccountConfigSchema, { ...base, SIM_ACCOUNT_CURRENCY: 'XAU' })).toThrow(/SIM_ACCOUNT_CURRENCY: expected one of/);
  });

  it('takes a postgres:// DATABASE_URL and refuses any other', () => {
    expect(loadConfig(AccountConfigSchema, { ...base, DATABASE_URL: 'postgres://fxdesk@db:5432/fxdesk' }).DATABASE_URL).toBe(
      'postgres://fxdesk@db:5432/fxdesk',
    );
    expect(() => loadConfig(AccountConfigSchema, { ...base, DATABASE_URL: 'mysql://db/fxdesk' })).toThrow(
      /DATABASE_URL: expected a postgres:\/\/ or postgresql:\/\/ URL/,
    );
  });

  it('never echoes the OANDA token in its message', () => {
    let message = '';
    try {
      loadConfig(AccountConfigSchema, { ...base, BROKER: 'oanda', OANDA_API_TOKEN: 'x'.repeat(5000), OANDA_ACCOUNT_ID: 'bad' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).not.toContain('xxxxx');
  });
});
