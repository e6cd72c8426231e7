import { buildService, kitOptionsFromConfig, protectRoutes, registerHealthRoutes, type App } from '@fxdesk/core';
import type { Logger } from 'pino';
import pkg from '../package.json' with { type: 'json' };
import { recipientsFromConfig } from './channels/index.js';
import type { NotificationConfig } from './config.js';
import type { NotificationDeps } from './deps.js';
import { MessengerWebhook } from './messenger-webhook.js';
import { Notifier } from './notifier.js';
import { Outbox } from './outbox.js';
import { configSecrets } from './provider-secrets.js';
import { registerNotificationRoutes } from './routes/notifications.js';
import { registerSmsWebhookRoutes } from './routes/sms-webhook.js';
import { registerWebhookRoutes } from './routes/webhooks.js';
import { SmsStatusWebhook } from './sms-status.js';
import type { NotificationStore } from './store.js';

export interface NotificationService {
  app: App;
  store: NotificationStore;
  outbox: Outbox;
}

/**
 * Builds the notification service; it does not listen (server.ts does). The outbox starts when
 * the app is ready and stops, letting sends in flight be recorded, when it begins to close.
 */
export async function buildApp({ config, deps }: { config: NotificationConfig; deps: NotificationDeps }): Promise<NotificationService> {
  const { clock, store } = deps;
  const app = await buildService({
    ...kitOptionsFromConfig(config),
    name: 'notification',
    title: 'fxdesk notification service',
    description:
      'Sends one message to the configured chat-bot (Telegram), email (SMTP), SMS (Twilio) and messenger (WhatsApp) recipients, ' +
      'through a durable outbox with retries, keeps a delivery record per recipient, and takes delivery-status webhooks (spec 002 D).',
    version: pkg.version,
    securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' }, bearer: { type: 'http', scheme: 'bearer' } },
    tags: [
      { name: 'notifications', description: 'Send notifications and read delivery records' },
      { name: 'webhooks', description: 'Called by the messenger platform and by Twilio' },
    ],
    logger: deps.logger,
    now: () => clock.now(),
  });

  const attempts = app.metrics.counter('notification_delivery_attempts_total', 'Delivery attempts by channel and outcome (sent, retry, failed).');
  // The gauges are read synchronously while /metrics renders: the counts are read just before.
  let byStatus: Record<string, number> = {};
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.url !== '/metrics') return;
    byStatus = await store.countByStatus().catch((err: unknown) => {
      request.log.warn({ err }, 'metrics: counting deliveries by status failed; the last counts are shown');
      return byStatus;
    });
  });
  app.metrics.gauge('notification_deliveries', 'Delivery records by status.', () => Object.entries(byStatus).map(([status, n]) => [{ status }, n]));
  const outbox = new Outbox({
    store,
    transports: deps.transports,
    clock,
    random: deps.random,
    logger: app.log.child({ component: 'outbox' }) as Logger,
    policy: { maxAttempts: config.MAX_DELIVERY_ATTEMPTS, baseMs: config.RETRY_BASE_MS, capMs: config.RETRY_MAX_MS },
    concurrency: config.OUTBOX_CONCURRENCY,
    pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
    // nodemailer's timeouts are per stage (connect, greeting, socket): three of them, plus slack.
    leaseMs: 3 * config.PROVIDER_TIMEOUT_MS + 5000,
    atMostOnce: config.AT_MOST_ONCE_CHANNELS,
    secrets: configSecrets(config),
    onResult: (channel, outcome) => attempts.inc({ channel, outcome }),
  });
  const notifier = new Notifier({
    store,
    recipients: recipientsFromConfig(config),
    enabled: config.NOTIFICATIONS_ENABLED,
    clock,
    logger: app.log as Logger,
    onStored: () => outbox.wake(),
  });
  const webhook = new MessengerWebhook({
    store,
    clock,
    verifyToken: config.MESSENGER_APP_VERIFY_TOKEN,
    appSecret: config.MESSENGER_APP_APP_SECRET,
    hasTemplate: config.MESSENGER_APP_TEMPLATE !== undefined,
    onRequeued: () => outbox.wake(),
  });

  const smsStatus = new SmsStatusWebhook({ store, clock, authToken: config.SMS_AUTH_TOKEN, publicBaseUrl: config.PUBLIC_BASE_URL });

  registerHealthRoutes(app, { version: pkg.version, now: () => clock.now(), checks: { database: () => store.health() } });

  await app.register(async (api) => {
    if (config.NOTIFICATION_API_KEY === undefined) app.log.warn('NOTIFICATION_API_KEY is not set: /notifications accepts requests without a key');
    protectRoutes(api, { header: 'x-api-key', key: config.NOTIFICATION_API_KEY, allowBearer: true, schemes: ['apiKey', 'bearer'] });
    registerNotificationRoutes(api, notifier);
  });
  // A scope of its own: the platform cannot send the key, and the webhook reads its JSON from the raw bytes.
  await app.register(async (platform) => registerWebhookRoutes(platform as App, webhook));
  await app.register(async (twilio) => registerSmsWebhookRoutes(twilio as App, smsStatus));

  app.addHook('onReady', async () => outbox.start());
  // preClose: the outbox must be done with the store before server.ts's onClose closes it.
  app.addHook('preClose', async () => outbox.stop());
  return { app, store, outbox };
}
