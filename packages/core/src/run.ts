import type { z } from 'zod';
import type { Logger } from 'pino';
import { ConfigError, loadConfig, withDevSecrets, type Env } from './config.js';
import { createLogger } from './logger.js';
import type { App } from './service.js';
import { databasePath, DataDirLockedError, lockDataDir } from './sqlite.js';
import { forgetIdentity, markerPath, UnusableDatabaseError } from './sqlite-guard.js';

type ServerConfig = { HOST: string; PORT: number; LOG_LEVEL: string; DATA_DIR?: string };

export interface RunServiceOptions<S extends z.ZodType<ServerConfig>> {
  name: string;
  configSchema: S;
  /** Settings that get a printed development value outside production and are required in it. */
  devSecrets?: Record<string, string>;
  /** Builds the real dependencies and the app from the validated config. */
  start: (config: z.output<S>, logger: Logger) => Promise<App>;
  env?: Env;
  /** Longest wait for in-flight work on shutdown before the process exits anyway (may depend on the settings). */
  shutdownTimeoutMs?: number | ((config: z.output<S>) => number);
  /** Whether the service keeps files under DATA_DIR and so holds `<DATA_DIR>/<name>.lock` (default true; may depend on the settings). */
  ownsDataDir?: boolean | ((config: z.output<S>) => boolean);
  /** The SQLite files it keeps under DATA_DIR, by name without `.db` (default: its own name), whose markers `--reset` forgets. */
  databases?: string[];
  /** The command-line arguments (default: the process's); `--reset` is the only one. */
  argv?: string[];
}

/**
 * The whole of a service's server.ts: validate the environment (one line naming every bad
 * variable, exit 1), hold the service's lock on DATA_DIR (one line and exit 1 when another
 * process holds it), build, listen, and close gracefully on SIGINT/SIGTERM. A database that is
 * damaged or not the one DATA_DIR held (see sqlite-guard.ts) is refused with one line and exit 1;
 * `--reset` forgets the service's identity markers first, so it starts on the files as they are.
 */
export async function runService<S extends z.ZodType<ServerConfig>>(options: RunServiceOptions<S>): Promise<App> {
  const env = options.env ?? process.env;
  let config: z.output<S>;
  let devSecretsUsed: string[];
  let resolvedEnv: Env;
  try {
    const withSecrets = withDevSecrets(env, options.devSecrets ?? {});
    resolvedEnv = withSecrets.env;
    devSecretsUsed = withSecrets.used;
    config = loadConfig(options.configSchema, resolvedEnv);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${options.name}: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }

  const logger = createLogger({ name: options.name, level: config.LOG_LEVEL });
  for (const name of devSecretsUsed) {
    logger.warn(`${name} is not set: using the development value "${resolvedEnv[name]}". Set ${name} before exposing this service.`);
  }

  const ownsDataDir = typeof options.ownsDataDir === 'function' ? options.ownsDataDir(config) : (options.ownsDataDir ?? true);
  if (ownsDataDir && config.DATA_DIR !== undefined && config.DATA_DIR !== ':memory:') {
    try {
      const held = lockDataDir(config.DATA_DIR, options.name);
      // Held until the process exits (the reference also keeps the handle from being collected).
      process.once('exit', () => held.release());
      if ((options.argv ?? process.argv.slice(2)).includes('--reset')) forgetIdentities(config.DATA_DIR, options.databases ?? [options.name], logger);
    } catch (err) {
      if (err instanceof DataDirLockedError) {
        process.stderr.write(`${options.name}: ${err.message}\n`);
        process.exit(1);
      }
      throw err;
    }
  }

  let app: App;
  try {
    app = await options.start(config, logger);
    await app.listen({ host: config.HOST, port: config.PORT });
  } catch (err) {
    if (err instanceof UnusableDatabaseError) {
      process.stderr.write(`${options.name}: ${err.message}\n`);
      process.exit(1);
    }
    logger.fatal({ err }, `${options.name} failed to start`);
    process.exit(1);
  }

  const shutdownTimeoutMs = typeof options.shutdownTimeoutMs === 'function' ? options.shutdownTimeoutMs(config) : (options.shutdownTimeoutMs ?? 10_000);
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, shutdownTimeoutMs);
    timer.unref();
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  return app;
}

/** `--reset`: forgets the identity of each of the service's databases, so each opens as it is found (empty, or another one). */
function forgetIdentities(dataDir: string, databases: string[], logger: Logger): void {
  for (const name of databases) {
    const file = databasePath(dataDir, name);
    if (forgetIdentity(file)) logger.warn(`--reset: forgot ${markerPath(file)}; ${name} starts on ${file} as it is now`);
  }
}
