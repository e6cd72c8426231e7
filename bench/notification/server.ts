/**
 * One server of the notification benchmark, in its own process so the load generator does not
 * share its core: `service` is the real notification service (durable SQLite, synchronous=FULL,
 * sandbox transports, the outbox running), `bare` is bare Fastify answering the same 201 body.
 * Prints `{"port":…}` when listening; on SIGTERM prints the service's figures and exits.
 */
import Fastify from 'fastify';
import { loadConfig, SqliteStoreDatabase } from '@fxdesk/core';
import { systemClock } from '@fxdesk/primitives';
import { buildApp } from '../../services/notification/src/app.js';
import { NotificationConfigSchema } from '../../services/notification/src/config.js';
import { openDeps } from '../../services/notification/src/deps.js';
import type { DatabaseNotificationStore } from '../../services/notification/src/database-store.js';

const [mode = 'service', dataDir = './data', apiKey = 'bench-notification-key'] = process.argv.slice(2);
const body = { requestId: '3f0a6b2e-8c1d-4e5f-9a7b-1c2d3e4f5a6b', deliveryIds: ['7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a'], deliveriesAttempted: 1 };

if (mode === 'bare') {
  const app = Fastify({ logger: false });
  app.post('/notifications', async (_request, reply) => reply.status(201).send(body));
  await app.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`${JSON.stringify({ port: (app.server.address() as { port: number }).port })}\n`);
  process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
} else {
  const config = loadConfig(NotificationConfigSchema, {
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    NOTIFICATION_API_KEY: apiKey,
    RATE_LIMIT_PER_MINUTE: '0',
    CHAT_APP_CHAT_IDS: '111',
  });
  const deps = await openDeps(config, { clock: systemClock });
  const { app, store } = await buildApp({ config, deps });
  app.addHook('onClose', deps.close);
  await app.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`${JSON.stringify({ port: (app.server.address() as { port: number }).port })}\n`);
  process.once('SIGTERM', () => {
    const { db } = store as DatabaseNotificationStore;
    const synchronous = db instanceof SqliteStoreDatabase ? db.connection.pragma('synchronous', { simple: true }) : undefined;
    void store.countByStatus().then(async (deliveries) => {
      const stats = { commits: db.commitStats, deliveries, synchronous };
      await app.close();
      process.stdout.write(`${JSON.stringify(stats)}\n`);
      process.exit(0);
    });
  });
}
