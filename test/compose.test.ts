import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { z } from 'zod';
import { serviceEntries } from '../scripts/build-services.js';
import { COMPOSE_NGINX_CONF, composeBalancer, DATABASE_SERVICES, databaseName, nginxConfig, replicaNames } from '../scripts/scale.js';
import { envPrefix, STACK_KEYS } from '../scripts/stack-env.js';
import { STACK } from '../scripts/stack.js';
import { ConfigError, loadConfig, withDevSecrets } from '@fxdesk/core';
import { CONFIG_SCHEMAS, DEV_SECRETS, settingNames } from './services.js';

interface ComposeService {
  profiles?: string[];
  build?: string;
  volumes?: string[];
  command: string[];
  environment: Record<string, string>;
  ports: string[];
  healthcheck: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}

const root = path.resolve(import.meta.dirname, '..');
/** What `npm run build` writes for each service, relative to the root (where the image runs). */
const bundles = new Map(serviceEntries(root).map((s) => [s.name, path.relative(root, s.outfile)]));
const compose = parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
  volumes: Record<string, unknown>;
};

const inProfile = (name: string) => Object.keys(compose.services).filter((s) => compose.services[s]?.profiles?.includes(name));

/**
 * What a user puts in .env for each ${VAR:?…} (a long enough value for any key or password), each
 * ${VAR:-default}'s default, innermost first (compose nests them: ${A:-${B:-default}}).
 */
function resolve(value: string, dotEnv: Record<string, string> = {}): string {
  let resolved = value.replace(/\$\{(\w+):\?[^}]*\}/g, (_, name: string) => dotEnv[name] ?? 'compose-test-secret-value');
  for (let before = ''; before !== resolved;) {
    before = resolved;
    resolved = resolved.replace(/\$\{(\w+):-([^${}]*)\}/, (_, name: string, fallback: string) => dotEnv[name] || fallback);
  }
  return resolved;
}

/** Whether a service's config, given what compose sets, starts in production. */
function startsInProduction(name: string, environment: Record<string, string>): void {
  const env = Object.fromEntries(Object.entries(environment).map(([k, v]) => [k, resolve(v)]));
  const production = { NODE_ENV: 'production', ...env };
  expect(() => loadConfig(CONFIG_SCHEMAS[name]!, withDevSecrets(production, DEV_SECRETS[name] ?? {}).env)).not.toThrow(ConfigError);
}

describe('docker-compose.yml', () => {
  it('runs exactly the five services of the stack without a profile', () => {
    const always = Object.keys(compose.services).filter((s) => compose.services[s]?.profiles === undefined);
    expect(always.sort()).toEqual(STACK.map((s) => s.name).sort());
  });

  for (const service of STACK) {
    describe(service.name, () => {
      const c = compose.services[service.name] as ComposeService;

      it('starts the bundle that npm run build makes of its server.ts', () => {
        expect(c.command).toEqual([bundles.get(service.name)]);
      });

      it('listens on every interface of its container, whatever .env says about HOST (compose sets it over env_file)', () => {
        expect(c.environment.HOST).toBe('0.0.0.0');
      });

      it('listens on its stack port and publishes it', () => {
        expect(c.environment.PORT).toBe(String(service.stackPort));
        expect(c.ports.some((p) => p.endsWith(`:${service.stackPort}:${service.stackPort}`) || p === `${service.stackPort}:${service.stackPort}`)).toBe(true);
      });

      it('checks its health on /health/live at its own port', () => {
        expect(c.healthcheck.test.join(' ')).toContain(`http://127.0.0.1:${service.stackPort}/health/live`);
      });

      it('sets only variables its config schema knows', () => {
        const known = settingNames(service.name);
        for (const name of Object.keys(c.environment)) expect(known, `${service.name} sets ${name}`).toContain(name);
      });

      it('requires every key it sets instead of defaulting it', () => {
        for (const value of Object.values(c.environment)) {
          const ref = /^\$\{(\w+)(:[?-])?/.exec(value);
          if (ref && (ref[1] as string) in STACK_KEYS) expect(ref[2], `${value} must be required`).toBe(':?');
        }
      });

      it('starts in production with what compose gives it: every setting its config requires there is set', () => {
        startsInProduction(service.name, c.environment);
      });

      it('takes its broker from its own stack-level name, else VENUE, simulated by default', () => {
        const broker = c.environment.BROKER;
        if (broker === undefined) return;
        expect(broker).toBe(`\${${envPrefix(service)}_BROKER:-\${VENUE:-simulated}}`);
        expect(resolve(broker)).toBe('simulated');
      });

      it('keeps its database on the named volume', () => {
        expect((c as unknown as { volumes: string[] }).volumes).toContain('fxdesk-data:/app/data');
      });
    });
  }

  it('refuses, in the execution service, real orders on simulated prices or another venue’s, unless ALLOW_MIXED_VENUES=true', () => {
    const execution = (dotEnv: Record<string, string>) => {
      const env = Object.fromEntries(Object.entries(compose.services.execution!.environment).map(([k, v]) => [k, resolve(v, dotEnv)]));
      const production = { NODE_ENV: 'production', METAAPI_TOKEN: 'token', METAAPI_ACCOUNT_ID: 'account', ...env };
      return () => loadConfig(CONFIG_SCHEMAS.execution!, production);
    };
    expect(execution({ EXECUTION_BROKER: 'metaapi' })).toThrow(
      /BROKER: refusing to start: EXECUTION_BROKER=metaapi sends real orders whose stops and targets come from simulated prices/,
    );
    expect(execution({ EXECUTION_BROKER: 'metaapi', MARKET_DATA_BROKER: 'ctrader' })).toThrow(/are different venues/);
    expect(execution({ EXECUTION_BROKER: 'metaapi', ALLOW_MIXED_VENUES: 'true' })).not.toThrow();
    expect(execution({ VENUE: 'metaapi' })).not.toThrow();
  });

  it('keeps order entry on the host loopback interface', () => {
    expect(compose.services.execution?.ports).toEqual(['127.0.0.1:8001:8001']);
  });

  it('points the strategy at the other services by their compose names and stack ports', () => {
    const env = compose.services.strategy?.environment ?? {};
    expect(env.MARKET_DATA_URL).toBe('http://market-data:8010');
    expect(env.EXECUTION_URL).toBe('http://execution:8001');
    expect(env.ACCOUNT_URL).toBe('http://account:3000');
    expect(env.NOTIFICATION_URL).toBe('http://notification:3010');
  });

  it('points the account at the execution service, whose terminal is the simulated venue’s one account', () => {
    const env = compose.services.account?.environment ?? {};
    expect(env.EXECUTION_URL).toBe('http://execution:8001');
    expect(env.EXECUTION_API_KEY).toBe(compose.services.execution?.environment.API_KEY);
  });

  it('declares the named data volumes', () => {
    expect(Object.keys(compose.volumes).sort()).toEqual(['fxdesk-data', 'fxdesk-postgres', 'fxdesk-redis', 'fxdesk-scale-data']);
  });
});

describe('each service started alone (npm start, or by hand)', () => {
  for (const service of STACK) {
    it(`${service.name} binds the loopback interface when HOST is unset, and the one HOST names`, () => {
      const schema = CONFIG_SCHEMAS[service.name] as z.ZodObject;
      const env = withDevSecrets({}, DEV_SECRETS[service.name] ?? {}).env;
      expect((loadConfig(schema, env) as { HOST: string }).HOST).toBe('127.0.0.1');
      expect((loadConfig(schema, { ...env, HOST: '0.0.0.0' }) as { HOST: string }).HOST).toBe('0.0.0.0');
    });
  }
});

describe("docker-compose.yml's scale profile", () => {
  const replicas = STACK.flatMap((s) => replicaNames(s.name).map((name) => ({ service: s, name, c: compose.services[name] as ComposeService })));

  it('runs PostgreSQL, Redis, two replicas of each service and their balancer, as scripts/scale.ts describes the scaled desk', () => {
    expect(inProfile('scale').sort()).toEqual(['lb', 'postgres', 'redis', ...replicas.map((r) => r.name)].sort());
  });

  for (const { service, name, c } of replicas) {
    describe(name, () => {
      it(`starts ${service.name}'s bundle on its stack port, on every interface of its container`, () => {
        expect(c.command).toEqual([bundles.get(service.name)]);
        expect(c.environment.PORT).toBe(String(service.stackPort));
        expect(c.environment.HOST).toBe('0.0.0.0');
      });

      it('publishes no port: the balancer is the way in', () => {
        expect(c.ports).toBeUndefined();
      });

      it('keeps its files in a folder of its own and shares Redis; a service that keeps state shares its PostgreSQL database', () => {
        expect(c.volumes).toEqual(['fxdesk-scale-data:/app/data']);
        expect(c.environment.DATA_DIR).toBe(`/app/data/${name}`);
        expect(c.environment.REDIS_URL).toBe('redis://redis:6379');
        const database = DATABASE_SERVICES.includes(service.name) ? `@postgres:5432/${databaseName(service.name)}` : undefined;
        if (database) expect(c.environment.DATABASE_URL).toMatch(new RegExp(`^postgres://fxdesk:.*${database}$`));
        else expect(c.environment.DATABASE_URL).toBeUndefined();
      });

      it('names itself where its config reads a REPLICA_ID, sets only variables its config knows, and trusts the balancer to name clients', () => {
        const known = settingNames(service.name);
        for (const variable of Object.keys(c.environment)) expect(known, `${name} sets ${variable}`).toContain(variable);
        if (known.includes('REPLICA_ID')) expect(c.environment.REPLICA_ID).toBe(name);
        expect(c.environment.TRUST_PROXY).toBe('uniquelocal');
      });

      it('starts in production with what compose gives it', () => {
        startsInProduction(service.name, c.environment);
      });

      it('checks its health on /health/live at its own port', () => {
        expect(c.healthcheck.test.join(' ')).toContain(`http://127.0.0.1:${service.stackPort}/health/live`);
      });
    });
  }

  it('tells each market-data replica the URL the others reach it at, for candle requests a follower forwards', () => {
    for (const name of replicaNames('market-data')) expect(compose.services[name]?.environment.REPLICA_URL).toBe(`http://${name}:8010`);
  });

  it('points the strategy replicas at the other services through the balancer', () => {
    for (const name of replicaNames('strategy')) {
      const env = compose.services[name]?.environment ?? {};
      expect([env.MARKET_DATA_URL, env.EXECUTION_URL, env.ACCOUNT_URL, env.NOTIFICATION_URL]).toEqual([
        'http://lb:8010',
        'http://lb:8001',
        'http://lb:3000',
        'http://lb:3010',
      ]);
    }
  });

  it('points the account replicas at the execution replicas through the balancer', () => {
    for (const name of replicaNames('account')) expect(compose.services[name]?.environment.EXECUTION_URL).toBe('http://lb:8001');
  });

  it("publishes the stack's ports on the balancer, order entry on the host loopback interface only", () => {
    const lb = compose.services.lb as ComposeService;
    expect(lb.ports.sort()).toEqual(
      STACK.map((s) => (s.name === 'execution' ? `127.0.0.1:${s.stackPort}:${s.stackPort}` : `${s.stackPort}:${s.stackPort}`)).sort(),
    );
    expect(Object.keys(lb.depends_on ?? {}).sort()).toEqual(replicas.map((r) => r.name).sort());
  });

  it('passes the Host a browser sent, port included, so a page a service served posts from its own origin', () => {
    const conf = nginxConfig(composeBalancer());
    expect(conf).toContain('proxy_set_header Host $http_host;');
    expect(conf).not.toMatch(/proxy_set_header Host \$host;/);
  });

  it("gives nginx the config scripts/scale.ts writes for compose's replicas", () => {
    expect((compose.services.lb as ComposeService).volumes).toContain(`./${COMPOSE_NGINX_CONF}:/etc/nginx/nginx.conf:ro`);
    const committed = fs.readFileSync(path.join(root, COMPOSE_NGINX_CONF), 'utf8');
    expect(committed, `out of date: npx tsx scripts/scale.ts > ${COMPOSE_NGINX_CONF}`).toBe(nginxConfig(composeBalancer()));
  });

  it('creates the database of each service that keeps state when PostgreSQL first starts', () => {
    const postgres = compose.services.postgres as ComposeService;
    const mount = postgres.volumes?.find((v) => v.endsWith(':/docker-entrypoint-initdb.d/fxdesk.sql:ro')) ?? '';
    const sql = fs.readFileSync(path.join(root, mount.slice(2, mount.indexOf(':'))), 'utf8');
    const created = [...sql.matchAll(/^CREATE DATABASE (\w+);$/gm)].map((m) => m[1]);
    expect(created.sort()).toEqual(DATABASE_SERVICES.map(databaseName).sort());
  });

  it('builds the image once, in a service of each profile', () => {
    const builders = Object.keys(compose.services).filter((s) => compose.services[s]?.build !== undefined);
    expect(builders.sort()).toEqual(['market-data', 'market-data-1']);
  });
});

interface Stage {
  image: string;
  name: string | undefined;
  lines: string[];
}

/** The Dockerfile's stages in order, each with its instructions (continuation lines joined). */
function stages(dockerfile: string): Stage[] {
  const instructions = dockerfile
    .replace(/\s*\\\n\s*/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'));
  const found: Stage[] = [];
  for (const line of instructions) {
    const from = /^FROM (\S+)(?: AS (\S+))?/.exec(line);
    if (from) found.push({ image: from[1] as string, name: from[2], lines: [] });
    else found.at(-1)?.lines.push(line);
  }
  return found;
}

describe('Dockerfile', () => {
  const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
  const all = stages(dockerfile);
  const build = all.find((s) => s.lines.some((l) => l.includes('npm run build')));
  const runtime = all.at(-1) as Stage;
  const instruction = (stage: Stage, keyword: string) => stage.lines.filter((l) => l.startsWith(`${keyword} `));

  it('builds and runs on one LTS line of Node that the native SQLite driver supports, and installs from the lockfile', () => {
    const majors = all.map((s) => Number(/^node:(\d+)-/.exec(s.image)?.[1]));
    expect(majors.length).toBeGreaterThanOrEqual(2);
    expect(new Set(majors).size).toBe(1);
    const major = majors[0] as number;
    // LTS lines are the even majors; 24 and later are the ones in support through 2027.
    expect(major % 2).toBe(0);
    expect(major).toBeGreaterThanOrEqual(24);
    const driver = JSON.parse(fs.readFileSync(path.join(root, 'node_modules/better-sqlite3/package.json'), 'utf8')) as { engines: { node: string } };
    expect(driver.engines.node.split('||').map((r) => r.trim())).toContain(`${major}.x`);
    expect(dockerfile).toContain('npm ci --omit=dev');
  });

  it('bundles the services in a stage that installs every dependency from the lockfile', () => {
    const run = build?.lines.join('\n') ?? '';
    expect(run).toMatch(/npm ci(?! --omit=dev).* && npm run build/);
  });

  it('builds the console in the build stage and puts its files where the strategy serves them from (packages/console/dist)', () => {
    const run = build?.lines.join('\n') ?? '';
    expect(run).toContain('npm run build -w @fxdesk/console');
    const out = build?.lines.find((l) => l.includes(' /out/')) ?? '';
    expect(out).toMatch(/cp -r --parents .*packages\/console\/dist .*\/out\//);
    const copied = instruction(runtime, 'COPY').find((l) => /--from=build\b.* \/out\/ /.test(l));
    expect(copied).toBeDefined();
  });

  it("installs the production dependencies without the root's prepare script (the console's build needs dev dependencies), building the SQLite driver", () => {
    const deps = all.find((s) => s.lines.some((l) => l.includes('npm ci --omit=dev')));
    const run = deps?.lines.join('\n') ?? '';
    expect(run).toContain('npm ci --omit=dev --ignore-scripts');
    expect(run).toContain('npm rebuild better-sqlite3');
  });

  it('copies every workspace the services import into the build stage', () => {
    for (const dir of ['packages/', 'services/']) expect(build?.lines).toContain(`COPY ${dir} ${dir}`);
  });

  it('takes the runtime node_modules from the stage that installs production dependencies only', () => {
    const copies = instruction(runtime, 'COPY').filter((l) => l.includes('node_modules'));
    expect(copies).toHaveLength(1);
    const stage = /--from=(\S+)/.exec(copies[0] as string)?.[1];
    const deps = all.find((s) => s.name === stage);
    expect(deps?.lines.join('\n')).toContain('npm ci --omit=dev');
    expect(deps?.lines.join('\n')).not.toMatch(/npm ci(?! --omit=dev)/);
  });

  it("leaves tsx and esbuild out of a production install, the runtime stage's node_modules", () => {
    const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    for (const name of ['tsx', 'esbuild']) expect(lock.packages[`node_modules/${name}`]?.dev, name).toBe(true);
  });

  it('runs plain node, with no TypeScript loader', () => {
    const [entrypoint] = instruction(runtime, 'ENTRYPOINT');
    const argv = JSON.parse((entrypoint as string).slice('ENTRYPOINT '.length)) as string[];
    expect(argv[0]).toBe('node');
    expect(argv.join(' ')).not.toMatch(/--import|--loader|tsx/);
  });

  it('starts by default the strategy bundle that npm run build makes', () => {
    expect(instruction(runtime, 'CMD')).toEqual([`CMD ${JSON.stringify([bundles.get('strategy')])}`]);
  });
});
