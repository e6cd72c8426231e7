import pg from 'pg';

export type PostgresPool = pg.Pool;
export type PostgresClient = pg.PoolClient;
/** A connection of its own, outside any pool (connectPostgres). */
export type PostgresSession = pg.Client;

export interface OpenPostgresOptions {
  /** postgres://… (DATABASE_URL). */
  url: string;
  /** The store's name: its migrations are counted under it, so services may share one database. */
  store: string;
  /** Applied in order; the table `fxdesk_schema` records how many have run for `store`. */
  migrations: string[];
  /** Connections the pool holds at most (pg's default: 10). */
  maxConnections?: number;
  /**
   * The longest a statement runs, and a wait for a free connection or a new one lasts, before it
   * fails (default 10 s): a stuck database makes a caller fail and move on rather than hang.
   * Migrations run without the statement limit.
   */
  timeoutMs?: number;
}

/** A connection pool to the database, its schema brought up to date first. */
export async function openPostgres(options: OpenPostgresOptions): Promise<PostgresPool> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const pool = new pg.Pool({ connectionString: options.url, max: options.maxConnections, statement_timeout: timeoutMs, connectionTimeoutMillis: timeoutMs });
  // An idle connection that the server drops is taken out of the pool; without a listener, its
  // error would end the process.
  pool.on('error', () => undefined);
  try {
    await migratePostgres(pool, options.store, options.migrations);
  } catch (err) {
    await pool.end();
    throw err;
  }
  return pool;
}

/**
 * Runs the migrations past the store's recorded version in one transaction, under a
 * transaction-scoped advisory lock on the store's name: when replicas start at once, one
 * migrates and the others wait for its commit, then find nothing left to do. PostgreSQL's DDL is
 * transactional, so a failed migration leaves the schema as it was.
 */
export async function migratePostgres(pool: PostgresPool, store: string, migrations: string[]): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('SET LOCAL statement_timeout = 0');
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`fxdesk_schema:${store}`]);
    await client.query('CREATE TABLE IF NOT EXISTS fxdesk_schema (store TEXT PRIMARY KEY, version INTEGER NOT NULL)');
    const { rows } = await client.query<{ version: number }>('SELECT version FROM fxdesk_schema WHERE store = $1', [store]);
    const current = rows[0]?.version ?? 0;
    if (current > migrations.length) {
      throw new Error(`database schema version ${current} of ${store} is newer than this build knows (${migrations.length})`);
    }
    for (const step of migrations.slice(current)) await client.query(step);
    await client.query(
      `INSERT INTO fxdesk_schema (store, version) VALUES ($1, $2)
       ON CONFLICT (store) DO UPDATE SET version = EXCLUDED.version`,
      [store, migrations.length],
    );
  });
}

/** Runs `work` in a transaction on one connection of the pool: committed if it settles, rolled back if it throws. */
export async function inTransaction<T>(pool: PostgresPool, work: (client: PostgresClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    // A connection that cannot even roll back is dropped rather than handed to the next caller.
    await client.query('ROLLBACK').catch(() => (broken = true));
    throw err;
  } finally {
    client.release(broken);
  }
}

/** Whether the database answers a `SELECT 1` now, for a readiness check; the detail says why not. */
export async function postgresHealth(pool: PostgresPool): Promise<{ ok: boolean; detail: string }> {
  try {
    await pool.query('SELECT 1');
    return { ok: true, detail: 'PostgreSQL' };
  } catch (err) {
    return { ok: false, detail: `PostgreSQL does not answer: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/**
 * One connection of its own, outside any pool, for state that lives as long as the session: a
 * session-level advisory lock, LISTEN. Its errors (the server gone, the connection cut) are the
 * caller's to listen for; without a listener they are dropped rather than ending the process.
 */
export async function connectPostgres(options: { url: string; applicationName?: string; timeoutMs?: number }): Promise<PostgresSession> {
  const client = new pg.Client({
    connectionString: options.url,
    application_name: options.applicationName,
    connectionTimeoutMillis: options.timeoutMs ?? 10_000,
    keepAlive: true,
  });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}
