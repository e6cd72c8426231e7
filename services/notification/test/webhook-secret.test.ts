import { ConfigError, loadConfig } from '@fxdesk/core';
import { describe, expect, it } from 'vitest';
import { NotificationConfigSchema } from '../src/config.js';

const WEBHOOK = { MESSENGER_APP_VERIFY_TOKEN: 'verify-token-123' };

describe('MESSENGER_APP_APP_SECRET', () => {
  it('is required in production once the webhook can be subscribed (MESSENGER_APP_VERIFY_TOKEN set)', () => {
    const load = (env: Record<string, string>) => () => loadConfig(NotificationConfigSchema, env);
    expect(load({ NODE_ENV: 'production', ...WEBHOOK })).toThrow(ConfigError);
    expect(load({ NODE_ENV: 'production', ...WEBHOOK })).toThrow(
      /^invalid configuration: MESSENGER_APP_APP_SECRET: is required when NODE_ENV=production and MESSENGER_APP_VERIFY_TOKEN is set/,
    );
    expect(load({ NODE_ENV: 'production', ...WEBHOOK, MESSENGER_APP_APP_SECRET: 'app-secret-456' })).not.toThrow();
    expect(load({ NODE_ENV: 'production' })).not.toThrow();
    expect(load({ NODE_ENV: 'development', ...WEBHOOK })).not.toThrow();
  });
});
