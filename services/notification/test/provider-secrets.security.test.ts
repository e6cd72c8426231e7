import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, loadConfig, type Env } from '@fxdesk/core';
import { LogCapture } from '@fxdesk/core/testing';
import { ManualClock } from '@fxdesk/primitives';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type NotificationService } from '../src/app.js';
import { NotificationConfigSchema } from '../src/config.js';
import { openDeps } from '../src/deps.js';
import { SecretRedactor } from '../src/provider-secrets.js';
import { API_KEY, drainOutbox } from './harness.js';

const BOT_TOKEN = '123456789:AAH-bot_secret.Token~x';
const SMS_ACCOUNT_SID = `AC${'5a'.repeat(16)}`;
const SMS_AUTH_TOKEN = 'twilio-auth-secret-7';
const MESSENGER_APP_TOKEN = 'EAAGwhatsapp+secret/token=';
const SMTP_USER = 'alerts-user';
const SMTP_PASSWORD = 'smtp p@ss:word/9';

/** Every way a provider might echo text it was sent: as sent, and percent-encoded with hex digits in either case. */
const ECHOES = {
  'as sent': (text: string) => text,
  'percent-encoded, upper-case hex': (text: string) =>
    encodeURIComponent(text).replace(/[!'()*~._-]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
  'percent-encoded, lower-case hex': (text: string) => encodeURIComponent(text).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
  'every byte percent-encoded': (text: string) => [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''),
};
type Echo = keyof typeof ECHOES;

/**
 * An upstream that is not the provider (a proxy, a wrong base URL reaching an Express app): it
 * answers every request with Express's 404 page, which names the path, and, as some gateways do,
 * the Authorization header it got, echoed as `echo` says.
 */
class EchoingUpstream {
  echo: Echo = 'as sent';
  private server!: http.Server;
  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const encode = ECHOES[this.echo];
        const path = this.echo === 'as sent' ? (req.url ?? '') : encode(req.url ?? '');
        const auth = encode(req.headers.authorization ?? '');
        res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
        res.end(
          `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot POST ${path} (authorization: ${auth})</pre>\n</body>\n</html>\n`,
        );
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A real SMTP server that refuses every login with a reply naming the credentials it got. */
async function echoingSmtp(): Promise<{ url: string; stop: () => Promise<void> }> {
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth: (auth, _session, callback) => {
      const err = new Error(`Authentication failed for ${auth.username}:${auth.password}`) as Error & { responseCode: number };
      err.responseCode = 535;
      callback(err);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://${SMTP_USER}:${encodeURIComponent(SMTP_PASSWORD)}@127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let upstream: EchoingUpstream;
let smtp: { url: string; stop: () => Promise<void> };
let service: (NotificationService & { clock: ManualClock; logs: LogCapture }) | undefined;
beforeAll(async () => {
  upstream = await new EchoingUpstream().start();
  smtp = await echoingSmtp();
});
afterAll(async () => {
  await upstream.stop();
  await smtp.stop();
});
afterEach(async () => {
  await service?.app.close();
  service = undefined;
});

/** The service as server.ts builds it, every channel's provider at the echoing upstream, logging at debug into `logs`. */
async function start(env: Env): Promise<NotificationService & { clock: ManualClock; logs: LogCapture }> {
  const clock = new ManualClock();
  const logs = new LogCapture();
  const logger = createLogger({ name: 'notification', level: 'debug', stream: logs });
  const config = loadConfig(NotificationConfigSchema, { DATA_DIR: ':memory:', NOTIFICATION_API_KEY: API_KEY, RATE_LIMIT_PER_MINUTE: '0', ...env });
  const deps = await openDeps(config, { clock, logger });
  const built = await buildApp({ config, deps: { ...deps, random: () => 0.5 } });
  built.app.addHook('onClose', deps.close);
  await built.app.ready();
  service = { ...built, clock, logs };
  return service;
}

const providers = (): Env => ({
  CHAT_APP_BOT_TOKEN: BOT_TOKEN,
  CHAT_APP_CHAT_IDS: '111',
  CHAT_APP_BASE_URL: upstream.url,
  SMS_ACCOUNT_SID,
  SMS_AUTH_TOKEN,
  SMS_FROM: '+14155550100',
  SMS_TO: '+14155550111',
  SMS_BASE_URL: upstream.url,
  MESSENGER_APP_TOKEN,
  MESSENGER_APP_PHONE_NUMBER_ID: '1234567890',
  MESSENGER_APP_TO: '14155550122',
  MESSENGER_APP_BASE_URL: upstream.url,
  EMAIL_SMTP_URL: smtp.url,
  EMAIL_FROM: 'desk@example.com',
  EMAIL_TO: 'trader@example.com',
});

interface Delivery {
  channel: string;
  status: string;
  error: { code: string; message: string } | null;
}

async function deliveries(s: NotificationService): Promise<Delivery[]> {
  const res = await s.app.inject({ method: 'GET', url: '/notifications', headers: { 'x-api-key': API_KEY } });
  expect(res.statusCode).toBe(200);
  return res.json<{ items: Delivery[] }>().items;
}

/** Whether `text` holds `secret` in any of the echoed forms (or the bot token's secret half alone). */
function leaks(text: string, secret: string): boolean {
  return Object.values(ECHOES).some((encode) => text.includes(encode(secret))) || text.toLowerCase().includes(encodeURIComponent(secret).toLowerCase());
}

const SECRETS = [BOT_TOKEN, SMS_ACCOUNT_SID, SMS_AUTH_TOKEN, MESSENGER_APP_TOKEN, SMTP_PASSWORD, API_KEY];

describe('secrets in provider errors', () => {
  for (const echo of Object.keys(ECHOES) as Echo[]) {
    it(`keeps the bot token out of the delivery record and the log when the upstream echoes the path ${echo}`, { timeout: 30_000 }, async () => {
      upstream.echo = echo;
      const s = await start(providers());
      const res = await s.app.inject({
        method: 'POST',
        url: '/notifications',
        headers: { 'x-api-key': API_KEY },
        payload: { message: 'hi', channels: ['CHAT_APP'], source: 'strategy' },
      });
      expect(res.statusCode).toBe(201);
      await drainOutbox(s);

      const [chat] = await deliveries(s);
      expect(chat?.status).toBe('failed');
      // The failure still says what happened, with the token blanked.
      expect(chat?.error?.code).toBe('404');
      expect(chat?.error?.message).toContain('[redacted]');
      expect(leaks(JSON.stringify(chat), BOT_TOKEN)).toBe(false);
      const failedLine = s.logs.lines.find((l) => l.includes('delivery failed'));
      expect(failedLine).toContain('[redacted]');
      expect(leaks(s.logs.text(), BOT_TOKEN)).toBe(false);
    });
  }

  it('keeps every configured secret out of every channel’s delivery record and the log', { timeout: 30_000 }, async () => {
    upstream.echo = 'percent-encoded, lower-case hex';
    const s = await start(providers());
    const res = await s.app.inject({
      method: 'POST',
      url: '/notifications',
      headers: { 'x-api-key': API_KEY },
      payload: { message: 'hi', channels: ['CHAT_APP', 'EMAIL', 'SMS', 'MESSENGER_APP'], source: 'strategy' },
    });
    expect(res.statusCode).toBe(201);
    await drainOutbox(s);

    const records = await deliveries(s);
    expect(records.map((d) => [d.channel, d.status]).sort()).toEqual([
      ['CHAT_APP', 'failed'],
      ['EMAIL', 'failed'],
      ['MESSENGER_APP', 'failed'],
      ['SMS', 'failed'],
    ]);
    for (const record of records) expect(record.error?.message, record.channel).toContain('[redacted]');
    for (const secret of SECRETS) {
      expect(leaks(JSON.stringify(records), secret), secret).toBe(false);
      expect(leaks(s.logs.text(), secret), secret).toBe(false);
    }
  });
});

describe('SecretRedactor', () => {
  it('blanks a secret as sent and percent-encoded in either case, and leaves other text alone', () => {
    const redactor = new SecretRedactor(['ab:c d']);
    expect(redactor.text('x ab:c d y ab%3Ac%20d z ab%3ac+d AB:C D')).toBe('x [redacted] y [redacted] z [redacted] AB:C D');
  });

  it('blanks a secret HTML-escaped, as an error page shows it', () => {
    expect(new SecretRedactor(['a<b&c']).text('<pre>Cannot POST /a&lt;b&amp;c</pre>')).toBe('<pre>Cannot POST /[redacted]</pre>');
  });

  it('blanks the start of a secret where the text was cut short, and not elsewhere', () => {
    const redactor = new SecretRedactor(['123456789:AAH-secret']);
    expect(redactor.text('Cannot POST /bot123456789:AA…')).toBe('Cannot POST /bot[redacted]…');
    expect(redactor.text('Cannot POST /bot1234')).toBe('Cannot POST /bot[redacted]');
    expect(redactor.text('chat 1234 refused')).toBe('chat 1234 refused');
  });

  it('blanks the longer of two overlapping secrets whole', () => {
    expect(new SecretRedactor(['abc', 'abcdef']).text('abcdef abc')).toBe('[redacted] [redacted]');
  });
});
