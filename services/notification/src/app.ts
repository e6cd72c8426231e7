import { buildService, databasePath, kitOptionsFromConfig, registerHealthRoutes, type App } from '@fxdesk/core';
import type { Clock } from '@fxdesk/primitives';
import type { Logger } from 'pino';
import pkg from '../package.json' with { type: 'json' };
import { recipientsFromConfig, transportsFromConfig, type Transports } from './channels/index.js';
import type { NotificationConfig } from './config.js';
import { Notifier } from './notifier.js';
import { Outbox } from './outbox.js';
import { CHANNELS } from './records.js';
import { notificationRoutes } from './routes/notifications.js';
import { webhookRoutes } from './routes/webhooks.js';
import { NotificationStore } from './store.js';

export interface NotificationDeps {
  clock: Clock;
  logger?: Logger;
  /** Replaces the transport of a channel (tests); the others come from the config. */
  transports?: Partial<Transports>;
  /** The jitter source of the backoff; Math.random unless a test fixes it. */
  random?: () => number;
}

export interface NotificationService {
  app: App;
  store: NotificationStore;
  outbox: Outbox;
}

/**
 * Builds the notification service with its store and outbox; it does not listen (server.ts
 * does). The outbox starts when the app is ready and stops, letting sends in flight finish,
 * when it closes.
 */
export async function buildNotificationService({ config, deps }: { config: NotificationConfig; deps: NotificationDeps }): Promise<NotificationService> {
  const now = () => deps.clock.now();
  const app = await buildService({
    ...kitOptionsFromConfig(config),
    name: 'notification',
    title: 'fxdesk notification service',
    description:
      'Sends one message to the configured chat-bot (Telegram), email (SMTP), SMS (Twilio) and messenger (WhatsApp) recipients, ' +
      'through a durable outbox with retries, keeps a delivery record per recipient, and takes delivery-status webhooks (spec 002 D).',
    version: pkg.version,
    securitySchemes: {
      apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      bearer: { type: 'http', scheme: 'bearer' },
    },
    tags: [
      { name: 'notifications', description: 'Send notifications and read delivery records' },
      { name: 'webhooks', description: 'Called by the messenger platform' },
    ],
    logger: deps.logger,
    now,
  });

  const store = new NotificationStore(databasePath(config.DATA_DIR, 'notification'));
  const built = transportsFromConfig(config, now);
  const transports: Transports = { ...built.transports, ...deps.transports };
  const delivered = app.metrics.counter('notification_delivery_attempts_total', 'Delivery attempts by channel and outcome (sent, retry, failed).');
  app.metrics.gauge('notification_deliveries', 'Delivery records by status.', () =>
    Object.entries(store.countByStatus()).map(([status, n]) => [{ status }, n] as [Record<string, string>, number]),
  );
  const outbox = new Outbox({
    store,
    transports,
    clock: deps.clock,
    random: deps.random ?? Math.random,
    logger: app.log.child({ component: 'outbox' }) as Logger,
    policy: { maxAttempts: config.MAX_DELIVERY_ATTEMPTS, baseMs: config.RETRY_BASE_MS, capMs: config.RETRY_MAX_MS },
    concurrency: config.OUTBOX_CONCURRENCY,
    pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
    // nodemailer's timeouts are per stage (connect, greeting, socket): three of them, plus slack.
    leaseMs: 3 * config.PROVIDER_TIMEOUT_MS + 5000,
    atMostOnce: config.AT_MOST_ONCE_CHANNELS,
    onResult: (channel, outcome) => delivered.inc({ channel, outcome }),
  });
  const recipients = recipientsFromConfig(config);
  const notifier = new Notifier({ store, recipients, clock: deps.clock, logger: app.log as Logger, onStored: () => outbox.wake() });

  if (config.NOTIFICATION_API_KEY === undefined) {
    app.log.warn('NOTIFICATION_API_KEY is not set: /notifications accepts requests without a key');
  }
  if (config.MESSENGER_APP_APP_SECRET === undefined) {
    // A warning where real WhatsApp messages go out (their status updates arrive there); on the sandbox, a note.
    const level = transports.MESSENGER_APP.provider === 'sandbox' ? 'info' : 'warn';
    app.log[level]('MESSENGER_APP_APP_SECRET is not set: POST /webhooks/messenger_app accepts unsigned status updates');
  }
  const unaddressed = CHANNELS.filter((c) => recipients[c].length === 0);
  if (unaddressed.length > 0) app.log.info({ channels: unaddressed }, 'no recipients configured for these channels: requests for them create no deliveries');
  const sandboxed = CHANNELS.filter((c) => transports[c].provider === 'sandbox');
  if (sandboxed.length > 0) app.log.info({ channels: sandboxed }, 'no credentials for these channels: their deliveries go to the sandbox (recorded, not sent)');

  registerHealthRoutes(app, {
    version: pkg.version,
    now,
    checks: {
      database: () => {
        store.db.prepare('SELECT 1').get();
        return { ok: true };
      },
    },
  });
  await app.register(notificationRoutes, { apiKey: config.NOTIFICATION_API_KEY, enabled: config.NOTIFICATIONS_ENABLED, notifier, store });
  await app.register(webhookRoutes, { verifyToken: config.MESSENGER_APP_VERIFY_TOKEN, appSecret: config.MESSENGER_APP_APP_SECRET, store, now });

  app.addHook('onReady', async () => outbox.start());
  app.addHook('onClose', async () => {
    await outbox.stop();
    await built.close();
    store.close();
  });
  return { app, store, outbox };
}

/** Builds the notification service's app (see buildNotificationService). */
export async function buildApp(options: { config: NotificationConfig; deps: NotificationDeps }): Promise<App> {
  return (await buildNotificationService(options)).app;
}
