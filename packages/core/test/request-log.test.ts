import { afterEach, describe, expect, it } from 'vitest';
import { LogCapture } from '../testing/log-capture.js';
import { protectRoutes } from '../src/auth.js';
import type { App } from '../src/service.js';
import { testService } from './kit.js';

const apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

/** A service logging at `level` into a capture, with a read, a write, a failing read and a keyed read. */
async function loggedApp(level: string) {
  const logs = new LogCapture();
  const app = await testService({ logStream: logs, logLevel: level });
  apps.push(app);
  app.get('/things', async () => ({ ok: true }));
  app.post('/things', async () => ({ ok: true }));
  app.get('/broken', async () => {
    throw new Error('boom');
  });
  await app.register(async (scope) => {
    protectRoutes(scope, { header: 'x-api-key', key: 'the-key-1234', schemes: ['apiKey'] });
    scope.get('/keyed', async () => ({ ok: true }));
  });
  /** The level of the request line `method url status`, if it was logged. */
  const levelOf = (method: string, url: string, status: number) => {
    const line = logs.lines.map((l) => JSON.parse(l) as { level: string; msg: string }).find((l) => l.msg.startsWith(`${method} ${url} ${status} `));
    return line?.level;
  };
  return { app, levelOf };
}

describe('the request log', () => {
  it('logs a routine read (GET or HEAD answered below 400) at debug, not at info', async () => {
    const { app, levelOf } = await loggedApp('debug');
    await app.inject({ url: '/things' });
    await app.inject({ method: 'HEAD', url: '/things' });
    expect(levelOf('GET', '/things', 200)).toBe('debug');
    expect(levelOf('HEAD', '/things', 200)).toBe('debug');

    const quiet = await loggedApp('info');
    await quiet.app.inject({ url: '/things' });
    expect(quiet.levelOf('GET', '/things', 200)).toBeUndefined();
  });

  it('logs a write at info, whatever its answer', async () => {
    const { app, levelOf } = await loggedApp('info');
    await app.inject({ method: 'POST', url: '/things' });
    await app.inject({ method: 'POST', url: '/things', headers: { 'content-type': 'application/json' }, payload: '{' });
    expect(levelOf('POST', '/things', 200)).toBe('info');
    expect(levelOf('POST', '/things', 400)).toBe('info');
  });

  it('logs a read answered 400 or more at info, a failure too (its cause in a line of its own, at error)', async () => {
    const { app, levelOf } = await loggedApp('info');
    await app.inject({ url: '/keyed' });
    await app.inject({ url: '/no/such/route' });
    await app.inject({ url: '/broken' });
    expect(levelOf('GET', '/keyed', 401)).toBe('info');
    expect(levelOf('GET', '/no/such/route', 404)).toBe('info');
    expect(levelOf('GET', '/broken', 500)).toBe('info');
  });
});
