import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compileNamed, PostgresStoreDatabase } from '@fxdesk/core';
import { answers, freePort, postgresUnavailable, run, startPostgres, until, type RunningPostgres } from '@fxdesk/core/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXECUTION_SCHEMA } from '../src/schema.js';
import { DatabaseSignalStore, listQuery } from '../src/signal-store.js';
import type { SignalFilter } from '../src/store.js';
import { API_KEY, NOW, getSignal, postSignal, signal, simulatedApp } from './helpers.js';
import { claim, signalStoreContract } from './signal-store.contract.js';

const unavailable = postgresUnavailable();
let server: RunningPostgres;

// One server for the file; each test gets its own database, sorted by an ICU locale (en-US) so
// that a query relying on the database's collation for its order would show it.
beforeAll(async () => {
  if (!unavailable) server = await startPostgres();
}, 300_000);
afterAll(() => server?.stop());

const database = () => server.createDatabase({ icuLocale: 'en-US' });

/** The signal store on the database `url` names, as the replica named. */
async function openStore(url: string, replicaId: string): Promise<DatabaseSignalStore> {
  return new DatabaseSignalStore(await PostgresStoreDatabase.open(url, EXECUTION_SCHEMA), replicaId);
}

describe.skipIf(unavailable !== undefined)(`PostgreSQL${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  signalStoreContract('PostgreSQL', {
    database: async () => {
      const url = await database();
      return (replicaId) => openStore(url, replicaId);
    },
  });

  describe('PostgreSQL signal store', () => {
    it('migrates once when replicas start at the same moment', async () => {
      const url = await database();
      const stores = await Promise.all(Array.from({ length: 4 }, (_, i) => openStore(url, `r${i}`)));
      expect(await stores[3]!.claim(claim('x'))).toEqual({ claimed: true });
      expect(await stores[0]!.claim(claim('x'))).toMatchObject({ claimed: false });
      await Promise.all(stores.map((s) => s.close()));
    });

    it('is unhealthy, saying why, when the database does not answer', async () => {
      const pool = new pg.Pool({ connectionString: `postgres://fxdesk@127.0.0.1:${await freePort()}/none` });
      const store = new DatabaseSignalStore(new PostgresStoreDatabase(pool), 'a');
      expect(await store.health()).toEqual({ ok: false, detail: expect.stringMatching(/^PostgreSQL does not answer: .*ECONNREFUSED/) });
      await store.close();
    });

    it('records the owner replica and the lease of each claim', async () => {
      const url = await database();
      const store = await openStore(url, 'replica-7');
      await store.claim(claim('x', { leaseExpiresAt: '2026-01-05T12:01:05.000Z' }));
      await store.close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query('SELECT owner, lease_expires_at FROM signals');
      await client.end();
      expect(rows).toEqual([{ owner: 'replica-7', lease_expires_at: '2026-01-05T12:01:05.000Z' }]);
    });

    it('serves every combination of list filters from an index, without a sort', async () => {
      const url = await database();
      const store = await openStore(url, 'a');
      await store.close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      // A planner that may choose a sequential scan on a tiny table is told not to, as it would not on a big one.
      await client.query('SET enable_seqscan = off');
      await client.query('SET enable_bitmapscan = off');
      const options: SignalFilter[] = [
        { state: 'filled' },
        { symbol: 'EURUSD' },
        { source: 'manual' },
        { receivedFrom: '2026-01-05T12:00:01.000Z' },
        { receivedBefore: '2026-01-05T12:00:02.000Z' },
        { after: { receivedAt: '2026-01-05T12:00:01.000Z', signalId: 'a' } },
      ];
      for (let mask = 0; mask < 1 << options.length; mask++) {
        const filter = Object.assign({}, ...options.filter((_, i) => mask & (1 << i))) as SignalFilter;
        const { sql, params } = listQuery(filter, 50);
        const { text, names } = compileNamed(sql);
        const values = names.map((name) => params[name]);
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values);
        const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
        expect(plan, JSON.stringify(filter)).toMatch(/Index Scan Backward using signals_(received|state|symbol|source)\b/);
        expect(plan, JSON.stringify(filter)).not.toMatch(/Sort/);
      }
      await client.end();
    });
  });

  describe('the service on PostgreSQL', () => {
    it('two replicas on one database: 100 identical submissions spread over both cause one order_send in total', async () => {
      const url = await database();
      const replicas = [
        await simulatedApp({ store: await openStore(url, 'a'), env: { MAXIMUM_VOLUME: '10' } }),
        await simulatedApp({ store: await openStore(url, 'b'), env: { MAXIMUM_VOLUME: '10' } }),
      ];
      const body = signal();
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => postSignal(replicas[i % 2]!.app, body)));
      expect(replicas.reduce((sum, r) => sum + r.terminal.stats.orderSendCalls, 0)).toBe(1);
      expect((await replicas[0]!.app.inject({ url: '/health/ready' })).json()).toMatchObject({ checks: { store: { ok: true, detail: 'PostgreSQL' } } });
      const originals = results.filter((r) => r.statusCode === 200 && r.headers['idempotent-replayed'] === undefined);
      expect(originals).toHaveLength(1);
      for (const result of results) {
        if (result === originals[0]) continue;
        const isReplay = result.headers['idempotent-replayed'] === 'true' && result.body === originals[0]!.body;
        const isInProgress = result.statusCode === 409 && result.json().code === 'signal_in_progress';
        expect(isReplay || isInProgress).toBe(true);
      }
      await Promise.all(replicas.map((r) => r.app.close()));
    });

    it("a replica that restarts marks unknown its own interrupted signal, not another replica's in flight", async () => {
      const url = await database();
      const received = new Date(NOW - 1_000).toISOString();
      const lease = new Date(NOW + 60_000).toISOString();
      const [mine, theirs] = [randomUUID(), randomUUID()];
      const crashed = await openStore(url, 'a');
      await crashed.claim(claim(mine, { receivedAt: received, leaseExpiresAt: lease }));
      await crashed.close();
      const live = await openStore(url, 'b');
      await live.claim(claim(theirs, { receivedAt: received, leaseExpiresAt: lease }));
      const restarted = await simulatedApp({ store: await openStore(url, 'a') });
      expect((await getSignal(restarted.app, mine)).json()).toMatchObject({ state: 'unknown', http_status: 503 });
      expect((await getSignal(restarted.app, theirs)).json()).toMatchObject({ state: 'processing' });
      await restarted.app.close();
      await live.close();
    });

    it("a running replica takes over a dead replica's claim once its lease has passed", async () => {
      const url = await database();
      const signalId = randomUUID();
      const dead = await openStore(url, 'b');
      await dead.claim(claim(signalId, { receivedAt: new Date(NOW).toISOString(), leaseExpiresAt: new Date(NOW + 65_000).toISOString() }));
      await dead.close();
      const live = await simulatedApp({ store: await openStore(url, 'a') });
      const state = async () => (await getSignal(live.app, signalId)).json<{ state: string }>().state;
      await live.clock.advanceAsync(60_000);
      expect(await state()).toBe('processing');
      await live.clock.advanceAsync(10_000);
      await until(async () => (await state()) === 'unknown', 5_000);
      expect((await getSignal(live.app, signalId)).json()).toMatchObject({ http_status: 503, error: { code: 'execution_outcome_unknown' } });
      await live.app.close();
    });

    it('the server process keeps its signals in the database DATABASE_URL names', async () => {
      const url = await database();
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-exec-pg-'));
      const port = await freePort();
      const server = run('services/execution/src/server.ts', {
        DATA_DIR: dataDir,
        DATABASE_URL: url,
        REPLICA_ID: 'process-1',
        PORT: String(port),
        API_KEY,
        TRADING_ENABLED: 'true',
        SIM_MARKET_HOURS: 'false',
        LOG_LEVEL: 'warn',
      });
      try {
        await until(() => answers(`http://127.0.0.1:${port}/health/ready`), 30_000);
        const body = signal({ occurred_at: new Date().toISOString() });
        const res = await fetch(`http://127.0.0.1:${port}/v1/signals`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
          body: JSON.stringify(body),
        });
        expect(res.status, await res.clone().text()).toBe(200);
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        const { rows } = await client.query('SELECT signal_id, state, owner FROM signals');
        await client.end();
        expect(rows).toEqual([{ signal_id: body.signal_id, state: 'filled', owner: 'process-1' }]);
      } finally {
        server.child.kill('SIGTERM');
        await server.done;
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    }, 60_000);
  });
});
