import fs from 'node:fs';
import path from 'node:path';
import { STACK } from '@fxdesk/core';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { envPrefix, STACK_KEYS } from '../scripts/stack-env.js';
import { settingNames } from './services.js';

interface ComposeService {
  command: string[];
  environment: Record<string, string>;
  ports: string[];
  healthcheck: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}

const root = path.resolve(import.meta.dirname, '..');
const compose = parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
  volumes: Record<string, unknown>;
};

describe('docker-compose.yml', () => {
  it('runs exactly the five services of the stack', () => {
    expect(Object.keys(compose.services).sort()).toEqual(STACK.map((s) => s.name).sort());
  });

  for (const service of STACK) {
    describe(service.name, () => {
      const c = compose.services[service.name] as ComposeService;

      it('starts the service from its server.ts', () => {
        expect(c.command).toEqual([`services/${service.name}/src/server.ts`]);
        expect(fs.existsSync(path.join(root, c.command[0] as string))).toBe(true);
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

      it('takes its broker from its own stack-level name, simulated by default', () => {
        const broker = c.environment.BROKER;
        if (broker === undefined) return;
        expect(broker).toBe(`\${${envPrefix(service)}_BROKER:-simulated}`);
      });

      it('keeps its database on the named volume', () => {
        expect((c as unknown as { volumes: string[] }).volumes).toContain('fxdesk-data:/app/data');
      });
    });
  }

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

  it('declares the named data volume', () => {
    expect(Object.keys(compose.volumes)).toEqual(['fxdesk-data']);
  });
});

describe('Dockerfile', () => {
  const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');

  it('builds and runs on one LTS line of Node that the native SQLite driver supports, and installs from the lockfile', () => {
    const majors = [...dockerfile.matchAll(/^FROM node:(\d+)-/gm)].map((m) => Number(m[1]));
    expect(majors).toHaveLength(2);
    expect(new Set(majors).size).toBe(1);
    const major = majors[0] as number;
    // LTS lines are the even majors; 24 and later are the ones in support through 2027.
    expect(major % 2).toBe(0);
    expect(major).toBeGreaterThanOrEqual(24);
    const driver = JSON.parse(fs.readFileSync(path.join(root, 'node_modules/better-sqlite3/package.json'), 'utf8')) as { engines: { node: string } };
    expect(driver.engines.node.split('||').map((r) => r.trim())).toContain(`${major}.x`);
    expect(dockerfile).toContain('npm ci --omit=dev');
  });

  it('copies every workspace the services import', () => {
    for (const dir of ['packages/', 'services/']) expect(dockerfile).toContain(`COPY ${dir} ${dir}`);
  });

  it('runs TypeScript through tsx, which is a runtime dependency', () => {
    expect(dockerfile).toContain('ENTRYPOINT ["node", "--import", "tsx"]');
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies.tsx).toBeDefined();
  });
});
