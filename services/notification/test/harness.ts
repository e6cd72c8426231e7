import { loadConfig, type Env } from '@fxdesk/core';
import { ManualClock } from '@fxdesk/primitives';
import { buildNotificationService, type NotificationDeps, type NotificationService } from '../src/app.js';
import { NotificationConfigSchema } from '../src/config.js';

export const API_KEY = 'test-notification-key';

export interface Harness extends NotificationService {
  clock: ManualClock;
  /** POST /notifications with the test key. */
  notify: (body: Record<string, unknown>, headers?: Record<string, string>) => Promise<{ statusCode: number; json: Record<string, unknown>; headers: Record<string, unknown> }>;
  close: () => Promise<void>;
}

/**
 * The service as server.ts builds it, with literal settings, a manual clock, a fixed jitter
 * (0.5, so every backoff is half its ceiling) and an in-memory database unless DATA_DIR is given.
 */
export async function startService(env: Env = {}, deps: Partial<NotificationDeps> = {}): Promise<Harness> {
  const clock = new ManualClock();
  const config = loadConfig(NotificationConfigSchema, { LOG_LEVEL: 'silent', DATA_DIR: ':memory:', NOTIFICATION_API_KEY: API_KEY, RATE_LIMIT_PER_MINUTE: '0', ...env });
  const service = await buildNotificationService({ config, deps: { clock, random: () => 0.5, ...deps } });
  await service.app.ready();
  return {
    ...service,
    clock,
    notify: async (body, headers = {}) => {
      const res = await service.app.inject({ method: 'POST', url: '/notifications', headers: { 'x-api-key': API_KEY, ...headers }, payload: body });
      return { statusCode: res.statusCode, json: res.json() as Record<string, unknown>, headers: res.headers };
    },
    close: () => service.app.close(),
  };
}
