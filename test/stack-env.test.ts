import { describe, expect, it } from 'vitest';
import { SANDBOX_CHAT, serviceEnv } from '../scripts/stack-env.js';
import { stackService } from '../scripts/stack.js';

describe('the environment each service gets in the stack', () => {
  it('gives each service its stack port, or its <SERVICE>_PORT override', () => {
    expect(serviceEnv(stackService('execution'), {}).env.PORT).toBe('8001');
    expect(serviceEnv(stackService('market-data'), { MARKET_DATA_PORT: '9010' }).env.PORT).toBe('9010');
  });

  it('hands each service its key under the name its config reads', () => {
    const base = { EXECUTION_API_KEY: 'exec-key-123', MARKET_DATA_API_KEY: 'md-key-1234', INTERNAL_API_KEY: 'acct-key-123' };
    expect(serviceEnv(stackService('execution'), base).env.API_KEY).toBe('exec-key-123');
    expect(serviceEnv(stackService('market-data'), base).env.API_KEY).toBe('md-key-1234');
    expect(serviceEnv(stackService('account'), base).env.INTERNAL_API_KEY).toBe('acct-key-123');
  });

  it('points the strategy at the other services with the same keys', () => {
    const { env } = serviceEnv(stackService('strategy'), { EXECUTION_PORT: '9001', INTERNAL_API_KEY: 'acct-key-123' });
    expect(env).toMatchObject({
      EXECUTION_URL: 'http://127.0.0.1:9001',
      MARKET_DATA_URL: 'http://127.0.0.1:8010',
      ACCOUNT_URL: 'http://127.0.0.1:3000',
      NOTIFICATION_URL: 'http://127.0.0.1:3010',
      ACCOUNT_API_KEY: 'acct-key-123',
      EXECUTION_API_KEY: 'dev-execution-key',
    });
  });

  it('points the simulated account at the execution service, whose terminal is the one account, with its key', () => {
    const { env } = serviceEnv(stackService('account'), { EXECUTION_PORT: '9001', EXECUTION_API_KEY: 'exec-key-123' });
    expect(env).toMatchObject({ BROKER: 'simulated', EXECUTION_URL: 'http://127.0.0.1:9001', EXECUTION_API_KEY: 'exec-key-123' });
  });

  it('leaves a real account read alone, with no execution URL', () => {
    expect(serviceEnv(stackService('account'), { ACCOUNT_BROKER: 'oanda' }).env.EXECUTION_URL).toBeUndefined();
  });

  it('fills unset keys with development values and names them', () => {
    const { env, devKeys } = serviceEnv(stackService('execution'), {});
    expect(env.API_KEY).toBe('dev-execution-key');
    expect(devKeys).toEqual(['EXECUTION_API_KEY']);
  });

  it('leaves keys unset in production so the service refuses to start', () => {
    const { env, devKeys } = serviceEnv(stackService('account'), { NODE_ENV: 'production' });
    expect(env.INTERNAL_API_KEY).toBeUndefined();
    expect(devKeys).toEqual([]);
  });

  it('picks each service its own broker, simulated unless its stack-level name says otherwise', () => {
    const base = { BROKER: 'oanda', ACCOUNT_BROKER: 'oanda', EXECUTION_BROKER: 'metaapi' };
    expect(serviceEnv(stackService('account'), base).env.BROKER).toBe('oanda');
    expect(serviceEnv(stackService('execution'), base).env.BROKER).toBe('metaapi');
    expect(serviceEnv(stackService('market-data'), base).env.BROKER).toBe('simulated');
  });

  it('gives every role VENUE’s broker, each role’s own setting over it', () => {
    const base = { VENUE: 'oanda', MARKET_DATA_BROKER: 'ctrader' };
    expect(serviceEnv(stackService('execution'), base).env.BROKER).toBe('oanda');
    expect(serviceEnv(stackService('account'), base).env.BROKER).toBe('oanda');
    expect(serviceEnv(stackService('market-data'), base).env.BROKER).toBe('ctrader');
    // A real venue's terminal is not traded out of the box, nor its account read through the execution service.
    expect(serviceEnv(stackService('execution'), base).env.TRADING_ENABLED).toBeUndefined();
    expect(serviceEnv(stackService('account'), base).env.EXECUTION_URL).toBeUndefined();
  });

  it('turns trading on for the simulated terminal only, and never over an explicit setting', () => {
    expect(serviceEnv(stackService('execution'), {}).env.TRADING_ENABLED).toBe('true');
    expect(serviceEnv(stackService('execution'), { EXECUTION_BROKER: 'metaapi' }).env.TRADING_ENABLED).toBeUndefined();
    expect(serviceEnv(stackService('execution'), { TRADING_ENABLED: 'false' }).env.TRADING_ENABLED).toBe('false');
  });

  it('sends announcements to a sandbox chat when no recipient is configured, and says so', () => {
    const { env, notes } = serviceEnv(stackService('notification'), {});
    expect(env.CHAT_APP_CHAT_IDS).toBe(SANDBOX_CHAT);
    expect(notes.join()).toContain(SANDBOX_CHAT);
  });

  it('leaves recipients alone once any is configured, a bot token is set, or in production', () => {
    for (const base of [{ EMAIL_TO: 'desk@example.com' }, { CHAT_APP_BOT_TOKEN: '123:abc' }, { NODE_ENV: 'production', NOTIFICATION_API_KEY: 'k-123456' }]) {
      expect(serviceEnv(stackService('notification'), base).env.CHAT_APP_CHAT_IDS).toBeUndefined();
    }
  });

  it('starts the strategy by itself on the simulated terminal, leaving it to the launcher to say what the strategy really does', () => {
    const { env, notes } = serviceEnv(stackService('strategy'), {});
    expect(env.AUTO_START).toBe('true');
    // A desk stopped before stays stopped: the launcher's line comes from the strategy's /status.
    expect(notes).toEqual([]);
  });

  it('leaves the strategy to be started by hand on a real terminal, in production, or when AUTO_START is set', () => {
    expect(serviceEnv(stackService('strategy'), { EXECUTION_BROKER: 'metaapi' }).env.AUTO_START).toBeUndefined();
    expect(serviceEnv(stackService('strategy'), { NODE_ENV: 'production' }).env.AUTO_START).toBeUndefined();
    expect(serviceEnv(stackService('strategy'), { AUTO_START: 'false' }).env.AUTO_START).toBe('false');
  });
});
