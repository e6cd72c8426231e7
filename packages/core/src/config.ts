import os from 'node:os';
import { isIP } from 'node:net';
import { envBoolean, envInt, envList, envNumber } from '@fxdesk/schemas';
import { z } from 'zod';

export type Env = Record<string, string | undefined>;

/** A bad environment: `message` names every bad or missing variable, on one line. */
export class ConfigError extends Error {
  readonly variables: string[];
  constructor(problems: { variable: string; message: string }[]) {
    super(`invalid configuration: ${problems.map((p) => `${p.variable}: ${p.message}`).join('; ')}`);
    this.name = 'ConfigError';
    this.variables = problems.map((p) => p.variable);
  }
}

/**
 * Validates the environment against a service's zod schema. Empty values count as unset, so
 * `FOO=` in a .env file falls back to the default. Throws ConfigError naming every problem.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: Env): z.output<S> {
  const present: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value !== '') present[key] = value;
  }
  const parsed = schema.safeParse(present);
  if (parsed.success) return parsed.data;
  throw new ConfigError(
    parsed.error.issues.map((issue) => ({
      variable: issue.path.map(String).join('.') || '(environment)',
      message: describeIssue(issue, present),
    })),
  );
}

function describeIssue(issue: z.core.$ZodIssue, env: Record<string, string>): string {
  const key = issue.path[0];
  const value = typeof key === 'string' ? env[key] : undefined;
  if (value === undefined && issue.code === 'invalid_type') return 'is required';
  // Never echo a value that could be a credential back into a log line.
  const shown = value !== undefined && typeof key === 'string' && !isSecretName(key) ? ` (got "${value}")` : '';
  return `${issue.message}${shown}`;
}

// URLs that may carry a password: SMTP_URL, DATABASE_URL (postgres://user:password@…).
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|SID|SMTP_URL|DATABASE_URL)$/;

/** Whether a setting holds a credential (its value is never logged or echoed). */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * Fills missing secrets with development values outside production, and refuses to start
 * without them in production. Returns the new env and the names that took a development value,
 * so the server can print them: never silently insecure.
 */
export function withDevSecrets(env: Env, devSecrets: Record<string, string>): { env: Env; used: string[] } {
  const out: Env = { ...env };
  const used: string[] = [];
  const missing: string[] = [];
  for (const [name, devValue] of Object.entries(devSecrets)) {
    if (env[name] !== undefined && env[name] !== '') continue;
    if (env.NODE_ENV === 'production') missing.push(name);
    else {
      out[name] = devValue;
      used.push(name);
    }
  }
  if (missing.length > 0) {
    throw new ConfigError(missing.map((variable) => ({ variable, message: 'is required when NODE_ENV=production' })));
  }
  return { env: out, used };
}

// The settings' shapes live in @fxdesk/schemas (so the broker's venue settings read alike); the service kit gives them on.
export { envBoolean, envInt, envList, envNumber };

/** What Fastify's trustProxy (proxy-addr) takes: an address, address/prefix, or one of its named ranges. */
function isProxyAddress(value: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(value)) return true;
  const [address = '', prefix, ...rest] = value.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Settings every service shares. A service's schema is `z.object({ ...commonSettings(port), ... })`.
 * A service binds the loopback interface unless HOST says otherwise: a desk started on a laptop
 * is not reachable from its network (compose and the image set HOST=0.0.0.0 in their container).
 */
export function commonSettings(defaultPort: number, defaultHost = '127.0.0.1') {
  return {
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    HOST: z.string().min(1).default(defaultHost),
    PORT: envInt(defaultPort, { min: 0, max: 65535 }),
    LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
    DATA_DIR: z.string().min(1).default('./data'),
    BROKER: z.enum(['simulated', 'oanda', 'metaapi', 'ctrader']).default('simulated'),
    SIM_SEED: z.string().min(1).default('fxdesk'),
    SIM_TICK_INTERVAL_MS: envInt(1000, { min: 10, max: 60_000 }),
    SIM_MARKET_HOURS: envBoolean(true),
    CORS_ORIGINS: envList([]),
    REDIS_URL: z.url({ protocol: /^rediss?$/, message: 'expected a redis:// or rediss:// URL' }).optional(),
    /** Proxies whose X-Forwarded-For names the client: addresses, CIDR ranges or loopback | linklocal | uniquelocal. */
    TRUST_PROXY: envList([]).pipe(z.array(z.string().refine(isProxyAddress, 'expected an IP address, a CIDR range, loopback, linklocal or uniquelocal'))),
    BODY_LIMIT_BYTES: envInt(1_048_576, { min: 1024, max: 64 * 1_048_576 }),
    /** Requests per minute per client IP; 0 turns the limit off. */
    RATE_LIMIT_PER_MINUTE: envInt(6000, { min: 0 }),
  };
}

/**
 * The one default of REPLICA_ID: the host name (letters, digits, dots, dashes and underscores
 * kept, the rest `_`, at most 64). It stays the same across restarts, so a restarted process takes
 * back at once the work an earlier one left in flight under its name, and differs from host to
 * host (and container to container). Several replicas on one host each need a REPLICA_ID of
 * their own (`npm run start:scale` and compose set one).
 */
export function defaultReplicaId(hostname = os.hostname()): string {
  return hostname.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64) || 'replica';
}

/**
 * The settings of a service that keeps a store, read here once for every service: DATABASE_URL
 * (PostgreSQL, for several replicas on one database; unset: SQLite under DATA_DIR, see
 * openStoreDatabase) and REPLICA_ID (this replica's name on the work it claims).
 */
export function databaseSettings() {
  return {
    DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, hostname: /./, message: 'expected a postgres:// or postgresql:// URL' }).optional(),
    REPLICA_ID: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/, { message: 'expected 1-64 letters, digits, dots, dashes or underscores' })
      .default(() => defaultReplicaId()),
  };
}

/** The values of a config's credential settings (by name: isSecretName), e.g. to keep them out of logs. */
export function secretValues(config: object): string[] {
  return Object.entries(config)
    .filter(([name, value]) => isSecretName(name) && typeof value === 'string' && value.length > 0)
    .map(([, value]) => value as string);
}

export type CommonConfig = z.output<z.ZodObject<ReturnType<typeof commonSettings>>>;

/** The buildService options every service takes straight from its common settings. */
export function kitOptionsFromConfig(config: CommonConfig) {
  return {
    logLevel: config.LOG_LEVEL,
    secrets: secretValues(config),
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    corsOrigins: config.CORS_ORIGINS,
    trustProxy: config.TRUST_PROXY.length > 0 ? config.TRUST_PROXY : undefined,
    rateLimit: config.RATE_LIMIT_PER_MINUTE > 0 ? { max: config.RATE_LIMIT_PER_MINUTE, timeWindowMs: 60_000, redisUrl: config.REDIS_URL } : undefined,
  };
}
