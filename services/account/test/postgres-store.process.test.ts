import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectPostgres, type PostgresSession } from '@fxdesk/core';
import { answers, freePort, postgresUnavailable, run, startPostgres, until, type RunningPostgres } from '@fxdesk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSnapshotDatabase } from '../src/deps.js';
import { SnapshotStore } from '../src/store.js';
import { BEFORE_MERGE } from './before-merge.js';
import { envelopeOf, startSimulated, SUMMARY, TEST_KEY, testConfig } from './helpers.js';
import { snapshotStoreContract } from './snapshot-store.contract.js';

const unavailable = postgresUnavailable();
let server: RunningPostgres;
/** A connection to a database of its own on the server, to look at and drop the tests' databases. */
let admin: PostgresSession;

// One server for the file; each test gets its own database.
beforeAll(async () => {
  if (unavailable) return;
  server = await startPostgres();
  admin = await connectPostgres({ url: await server.createDatabase() });
}, 300_000);
afterAll(async () => {
  await admin?.end();
  await server?.stop();
});

/** The snapshot store on the PostgreSQL database `url`, opened as server.ts opens it with DATABASE_URL. */
async function openStore(url: string, retention = 0): Promise<SnapshotStore> {
  return new SnapshotStore(await openSnapshotDatabase(testConfig({ DATABASE_URL: url })), retention);
}

/** Drops the database `url` names, closing its connections: the database is gone for whoever used it. */
async function dropDatabase(url: string): Promise<void> {
  await admin.query(`DROP DATABASE ${new URL(url).pathname.slice(1)} WITH (FORCE)`);
}

describe.skipIf(unavailable !== undefined)(`PostgreSQL${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  snapshotStoreContract('PostgreSQL', {
    database: async () => {
      const url = await server.createDatabase();
      return (retention) => openStore(url, retention);
    },
  });

  describe('PostgreSQL snapshot store', () => {
    it('migrates once when replicas start at the same moment', async () => {
      const url = await server.createDatabase();
      const stores = await Promise.all(Array.from({ length: 4 }, () => openStore(url, 10)));
      const added = await stores[3]!.add('summary', 'stub', SUMMARY, '2026-01-05T12:00:00.000Z');
      expect(await stores[0]!.recent(10)).toEqual([added]);
      await Promise.all(stores.map((s) => s.close()));
    });

    it('takes up a database of the per-engine store of before the merge, reading back every snapshot and numbering on after the newest', async () => {
      const url = await server.createDatabase();
      const client = await connectPostgres({ url });
      await client.query(fs.readFileSync(BEFORE_MERGE.postgresScript, 'utf8'));
      await client.end();
      const store = await openStore(url, 4);
      const before = BEFORE_MERGE.snapshots();
      expect(await store.recent(500)).toEqual(before);
      expect(await store.recent(500, 'details')).toEqual(before.filter((snapshot) => snapshot.kind === 'details'));
      expect((await store.add('summary', 'stub', SUMMARY, '2026-01-05T13:00:00.000Z')).id).toBe(8);
      expect((await store.recent(500)).map((snapshot) => snapshot.id)).toEqual([8, 7, 6, 5]);
      await store.close();
    });

    it('is unhealthy, saying why, once its database is gone', async () => {
      const url = await server.createDatabase();
      const store = await openStore(url);
      await dropDatabase(url);
      expect(await store.health()).toEqual({ ok: false, detail: expect.stringMatching(/^PostgreSQL does not answer: /) });
      await store.close();
    });
  });

  describe('the service on PostgreSQL', () => {
    it('two replicas on one database: 60 reads at once spread over both are numbered once each and both keep the same newest SNAPSHOT_RETENTION', async () => {
      const url = await server.createDatabase();
      const replicas = [await startSimulated({ store: await openStore(url, 25) }), await startSimulated({ store: await openStore(url, 25) })];
      const reads = await Promise.all(
        Array.from({ length: 60 }, (_, i) => replicas[i % 2]!.get(i % 3 === 0 ? '/api/v1/account/details' : '/api/v1/account/summary')),
      );
      const ids = reads.map((res) => res.json<{ snapshot: { id: number } }>().snapshot.id).sort((a, b) => a - b);
      expect(ids).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
      for (const replica of replicas) {
        const { snapshots } = (await replica.get('/api/v1/account/snapshots?limit=500')).json<{ snapshots: { id: number }[] }>();
        expect(snapshots.map((s) => s.id)).toEqual(ids.slice(-25).reverse());
      }
      expect((await replicas[0]!.get('/health/ready', {})).json().checks.database).toEqual({ ok: true, detail: 'PostgreSQL' });
      await Promise.all(replicas.map((r) => r.close()));
    });

    it('answers 503 storage_unavailable, and is not ready, while its database is gone', async () => {
      const url = await server.createDatabase();
      const h = await startSimulated({ store: await openStore(url) });
      await dropDatabase(url);
      for (const route of ['summary', 'snapshots']) {
        const res = await h.get(`/api/v1/account/${route}`);
        expect(res.statusCode, route).toBe(503);
        expect(envelopeOf(res).code).toBe('storage_unavailable');
      }
      const ready = await h.get('/health/ready', {});
      expect(ready.statusCode).toBe(503);
      expect(ready.json().checks.database.ok).toBe(false);
      await h.close();
    });

    it('two server processes started at once on an empty database, sharing one DATA_DIR, migrate it once, list each other’s snapshots and write no file', async () => {
      const url = await server.createDatabase();
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-account-pg-'));
      const ports = [await freePort(), await freePort()];
      const processes = ports.map((port) =>
        run('services/account/src/server.ts', {
          DATA_DIR: dataDir,
          DATABASE_URL: url,
          PORT: String(port),
          INTERNAL_API_KEY: TEST_KEY,
          SIM_MARKET_HOURS: 'false',
          LOG_LEVEL: 'warn',
        }),
      );
      const get = (port: number, route: string) => fetch(`http://127.0.0.1:${port}/api/v1/account/${route}`, { headers: { 'x-internal-api-key': TEST_KEY } });
      try {
        await Promise.all(ports.map((port) => until(() => answers(`http://127.0.0.1:${port}/health/ready`), 60_000)));
        const taken = [];
        for (const port of ports) taken.push(((await (await get(port, 'summary')).json()) as { snapshot: { id: number } }).snapshot.id);
        for (const port of ports) {
          const { snapshots } = (await (await get(port, 'snapshots')).json()) as { snapshots: { id: number }[] };
          expect(snapshots.map((s) => s.id)).toEqual([...taken].reverse());
        }
        expect(fs.readdirSync(dataDir)).toEqual([]);
      } finally {
        for (const p of processes) p.child.kill('SIGTERM');
        const exits = await Promise.all(processes.map((p) => p.done));
        fs.rmSync(dataDir, { recursive: true, force: true });
        expect(exits.map((e) => e.code)).toEqual([0, 0]);
      }
    }, 120_000);
  });
});
