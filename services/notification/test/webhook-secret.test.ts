import { Writable } from 'node:stream';
import { ConfigError, createLogger, loadConfig } from '@fxdesk/core';
import { describe, expect, it } from 'vitest';
import { logChannelSetup, type Transports } from '../src/channels/index.js';
import type { Transport } from '../src/channels/transport.js';
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

  it('says at start, as a note on the sandbox and a warning where WhatsApp sends for real, that status updates are refused', () => {
    const lines: { level: string; msg: string }[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as { level: string; msg: string });
        done();
      },
    });
    const logger = createLogger({ name: 'notification', level: 'info', stream: sink });
    const config = loadConfig(NotificationConfigSchema, {});
    const unsent: Transport = { provider: 'sandbox', send: () => Promise.reject(new Error('not sent')) };
    const messengerOn = (provider: 'sandbox' | 'whatsapp'): Transports => ({
      CHAT_APP: unsent,
      EMAIL: unsent,
      SMS: unsent,
      MESSENGER_APP: { ...unsent, provider },
    });
    logChannelSetup(config, messengerOn('sandbox'), logger);
    logChannelSetup(config, messengerOn('whatsapp'), logger);
    const notice = 'MESSENGER_APP_APP_SECRET is not set: POST /webhooks/messenger_app refuses status updates';
    expect(lines.filter((l) => l.msg === notice).map((l) => l.level)).toEqual(['info', 'warn']);
  });
});
