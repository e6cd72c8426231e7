import type { z } from 'zod';
import type { Logger } from 'pino';
import { ConfigError, loadConfig, withDevSecrets, type Env } from './config.js';
import { createLogger } from './logger.js';
import type { App } from './service.js';

export interface RunServiceOptions<S extends z.ZodType<{ HOST: string; PORT: number; LOG_LEVEL: string }>> {
  name: string;
  configSchema: S;
  /** Settings that get a printed development value outside production and are required in it. */
  devSecrets?: Record<string, string>;
  /** Builds the real dependencies and the app from the validated config. */
  start: (config: z.output<S>, logger: Logger) => Promise<App>;
  env?: Env;
  /** Longest wait for in-flight work on shutdown before the process exits anyway. */
  shutdownTimeoutMs?: number;
}

/**
 * The whole of a service's server.ts: validate the environment (one line naming every bad
 * variable, exit 1), build, listen, and close gracefully on SIGINT/SIGTERM.
 */
export async function runService<S extends z.ZodType<{ HOST: string; PORT: number; LOG_LEVEL: string }>>(
  options: RunServiceOptions<S>,
): Promise<App> {
  const env = options.env ?? process.env;
  let config: z.output<S>;
  let devSecretsUsed: string[] = [];
  let resolvedEnv: Env = env;
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

  let app: App;
  try {
    app = await options.start(config, logger);
    await app.listen({ host: config.HOST, port: config.PORT });
  } catch (err) {
    logger.fatal({ err }, `${options.name} failed to start`);
    process.exit(1);
  }

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, options.shutdownTimeoutMs ?? 10_000);
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
