import { loadConfig, type Env } from '@fxdesk/core';
import { ManualClock } from '@fxdesk/primitives';
import { buildApp, type NotificationService } from '../src/app.js';
import type { Transports } from '../src/channels/index.js';
import { NotificationConfigSchema, type NotificationConfig } from '../src/config.js';
import { openDeps } from '../src/deps.js';

export const API_KEY = 'test-notification-key';

export interface Harness extends NotificationService {
  clock: ManualClock;
  /** POST /notifications with the test key. */
  notify: (
    body: Record<string, unknown>,
    headers?: Record<string, string>,
  ) => Promise<{ statusCode: number; json: Record<string, unknown>; headers: Record<string, unknown> }>;
  close: () => Promise<void>;
}

/** The test settings: silent, an in-memory database, the test key, no rate limit; `env` adds or replaces. */
function testConfig(env: Env = {}): NotificationConfig {
  return loadConfig(NotificationConfigSchema, { LOG_LEVEL: 'silent', DATA_DIR: ':memory:', NOTIFICATION_API_KEY: API_KEY, RATE_LIMIT_PER_MINUTE: '0', ...env });
}

/**
 * The service as server.ts builds it (not yet ready), with literal settings, a manual clock, a
 * fixed jitter (0.5, so every backoff is half its ceiling), an in-memory database unless DATA_DIR
 * is given, and `overrides.transports` in place of the ones the settings name.
 */
export async function buildTestService(
  env: Env = {},
  overrides: { transports?: Partial<Transports> } = {},
): Promise<NotificationService & { clock: ManualClock }> {
  const clock = new ManualClock();
  const config = testConfig(env);
  const deps = await openDeps(config, { clock });
  const service = await buildApp({ config, deps: { ...deps, transports: { ...deps.transports, ...overrides.transports }, random: () => 0.5 } });
  service.app.addHook('onClose', deps.close);
  return { ...service, clock };
}

/**
 * Moves the manual clock from one due delivery to the next, exactly to its time, until none is
 * left or `limitMs` of simulated time has gone by; returns the simulated time it took.
 */
export async function drainOutbox(service: NotificationService & { clock: ManualClock }, limitMs = 3_600_000): Promise<number> {
  const start = service.clock.now();
  for (;;) {
    await service.outbox.settle();
    const due = await service.store.nextDueAt();
    if (due === undefined || due - start > limitMs) return service.clock.now() - start;
    await service.clock.advanceAsync(Math.max(0, due - service.clock.now()));
  }
}

/** The test service, ready, with a helper that posts a notification with the test key. */
export async function startService(env: Env = {}, overrides: { transports?: Partial<Transports> } = {}): Promise<Harness> {
  const service = await buildTestService(env, overrides);
  await service.app.ready();
  return {
    ...service,
    notify: async (body, headers = {}) => {
      const res = await service.app.inject({ method: 'POST', url: '/notifications', headers: { 'x-api-key': API_KEY, ...headers }, payload: body });
      return { statusCode: res.statusCode, json: res.json<Record<string, unknown>>(), headers: res.headers };
    },
    close: () => service.app.close(),
  };
}
