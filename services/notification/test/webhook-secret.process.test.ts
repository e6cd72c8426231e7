import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run } from '@fxdesk/core/testing';
import { afterAll, describe, expect, it } from 'vitest';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-notif-secret-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('the notification server in production with the webhook enabled and no app secret', () => {
  it('exits 1 with one line naming MESSENGER_APP_APP_SECRET', async () => {
    const result = await run('services/notification/src/server.ts', {
      NODE_ENV: 'production',
      PORT: '0',
      DATA_DIR: dataDir,
      MESSENGER_APP_VERIFY_TOKEN: 'verify-token-123',
    }).done;
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^notification: invalid configuration: MESSENGER_APP_APP_SECRET: is required when NODE_ENV=production and MESSENGER_APP_VERIFY_TOKEN is set/,
    );
  }, 30_000);
});
