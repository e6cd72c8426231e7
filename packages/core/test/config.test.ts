import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  commonSettings,
  ConfigError,
  databaseSettings,
  defaultReplicaId,
  envBoolean,
  envInt,
  envList,
  envNumber,
  isSecretName,
  loadConfig,
  withDevSecrets,
} from '../src/config.js';

const Schema = z.object({
  ...commonSettings(8000),
  FLAG: envBoolean(false),
  RATIO: envNumber(1.5, { min: 0 }),
  ITEMS: envList(['a']),
  SECRET_KEY: z.string().min(8).optional(),
});

describe('loadConfig', () => {
  it('applies the defaults to an empty environment', () => {
    const c = loadConfig(Schema, {});
    expect(c).toMatchObject({
      PORT: 8000,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DATA_DIR: './data',
      BROKER: 'simulated',
      SIM_MARKET_HOURS: true,
      FLAG: false,
      RATIO: 1.5,
      ITEMS: ['a'],
      CORS_ORIGINS: [],
    });
  });

  it('binds the loopback interface unless HOST says otherwise, in production too', () => {
    expect(loadConfig(Schema, { NODE_ENV: 'development' }).HOST).toBe('127.0.0.1');
    expect(loadConfig(Schema, { NODE_ENV: 'production' }).HOST).toBe('127.0.0.1');
    expect(loadConfig(Schema, { HOST: '' }).HOST).toBe('127.0.0.1');
    expect(loadConfig(Schema, { HOST: '0.0.0.0' }).HOST).toBe('0.0.0.0');
  });

  it('treats an empty value as unset', () => {
    expect(loadConfig(Schema, { PORT: '', FLAG: '' })).toMatchObject({ PORT: 8000, FLAG: false });
  });

  it('names every bad variable in one message', () => {
    let error: unknown;
    try {
      loadConfig(Schema, { PORT: 'abc', LOG_LEVEL: 'loud', FLAG: 'maybe' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const e = error as ConfigError;
    expect(e.variables.sort()).toEqual(['FLAG', 'LOG_LEVEL', 'PORT']);
    expect(e.message).not.toContain('\n');
    expect(e.message).toMatch(/^invalid configuration: /);
    expect(e.message).toContain('PORT: expected an integer (got "abc")');
  });

  it('never echoes the value of a secret setting', () => {
    expect(() => loadConfig(Schema, { SECRET_KEY: 'short' })).toThrow(/SECRET_KEY/);
    try {
      loadConfig(Schema, { SECRET_KEY: 'short' });
    } catch (err) {
      expect((err as Error).message).not.toContain('short');
    }
  });

  it('rejects a port out of range', () => {
    expect(() => loadConfig(Schema, { PORT: '70000' })).toThrow(/PORT/);
  });

  it('reads booleans in their usual spellings', () => {
    for (const [text, value] of [
      ['true', true],
      ['1', true],
      ['YES', true],
      ['on', true],
      ['false', false],
      ['0', false],
      ['No', false],
      ['off', false],
    ] as const) {
      expect(loadConfig(Schema, { FLAG: text }).FLAG).toBe(value);
    }
  });

  it('reads lists trimmed and without blanks', () => {
    expect(loadConfig(Schema, { ITEMS: ' x, y ,,z ' }).ITEMS).toEqual(['x', 'y', 'z']);
  });

  it('accepts only redis URLs for REDIS_URL', () => {
    expect(() => loadConfig(Schema, { REDIS_URL: 'http://localhost' })).toThrow(/REDIS_URL/);
    expect(loadConfig(Schema, { REDIS_URL: 'redis://localhost:6379' }).REDIS_URL).toBe('redis://localhost:6379');
  });

  it('reads TRUST_PROXY as addresses, CIDR ranges and named ranges, refusing anything else', () => {
    expect(loadConfig(Schema, {}).TRUST_PROXY).toEqual([]);
    expect(loadConfig(Schema, { TRUST_PROXY: 'loopback, 10.0.0.0/8,::1,fd00::/8' }).TRUST_PROXY).toEqual(['loopback', '10.0.0.0/8', '::1', 'fd00::/8']);
    for (const bad of ['true', 'proxy.example.com', '10.0.0.0/33', '10.0.0.1/8/8', '::1/129', '*']) {
      expect(() => loadConfig(Schema, { TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY/);
    }
  });

  it('bounds integers', () => {
    const S = z.object({ N: envInt(5, { min: 1, max: 10 }) });
    expect(() => loadConfig(S, { N: '0' })).toThrow(/N/);
    expect(() => loadConfig(S, { N: '1.5' })).toThrow(/N/);
    expect(loadConfig(S, { N: '10' }).N).toBe(10);
  });
});

describe('withDevSecrets', () => {
  it('fills a missing secret with its development value and says so', () => {
    const { env, used } = withDevSecrets({}, { API_KEY: 'dev-key' });
    expect(env.API_KEY).toBe('dev-key');
    expect(used).toEqual(['API_KEY']);
  });

  it('keeps a secret that is set', () => {
    const { env, used } = withDevSecrets({ API_KEY: 'real-key' }, { API_KEY: 'dev-key' });
    expect(env.API_KEY).toBe('real-key');
    expect(used).toEqual([]);
  });

  it('refuses a missing secret in production', () => {
    expect(() => withDevSecrets({ NODE_ENV: 'production' }, { API_KEY: 'dev-key' })).toThrow(/API_KEY: is required when NODE_ENV=production/);
  });
});

describe('isSecretName', () => {
  it('recognizes credential settings', () => {
    for (const n of ['API_KEY', 'INTERNAL_API_KEY', 'OANDA_API_TOKEN', 'MESSENGER_APP_APP_SECRET', 'SMS_ACCOUNT_SID', 'EMAIL_SMTP_URL', 'DATABASE_URL'])
      expect(isSecretName(n)).toBe(true);
    for (const n of ['PORT', 'HOST', 'SIM_SEED', 'TRADING_ENABLED']) expect(isSecretName(n)).toBe(false);
  });
});

describe('databaseSettings', () => {
  const schema = z.object(databaseSettings());

  it('names a replica after its host by default, the same on every start', () => {
    const first = loadConfig(schema, {});
    expect(first.REPLICA_ID).toBe(defaultReplicaId());
    expect(loadConfig(schema, {}).REPLICA_ID).toBe(first.REPLICA_ID);
    expect(first.DATABASE_URL).toBeUndefined();
  });

  it('keeps a host name within the characters and length a replica id allows', () => {
    expect(defaultReplicaId('desk one.example')).toBe('desk_one.example');
    expect(defaultReplicaId('h'.repeat(80))).toHaveLength(64);
    expect(defaultReplicaId('')).toBe('replica');
  });

  it('refuses a database that is not PostgreSQL and a replica id with other characters', () => {
    expect(() => loadConfig(schema, { DATABASE_URL: 'mysql://db/x' })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig(schema, { REPLICA_ID: 'two words' })).toThrow(/REPLICA_ID/);
  });
});
