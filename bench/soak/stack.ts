import fs from 'node:fs';
import { answers, freePort, run, until } from '@fxdesk/core/testing';
import { envPrefix, STACK_KEYS } from '../../scripts/stack-env.js';
import { STACK, type StackService } from '../../scripts/stack.js';
import { parseMetrics, type Scrape } from './scrape.js';

export type ServiceName = StackService['name'];

export interface SoakService {
  name: ServiceName;
  url: string;
  /** The header its /metrics needs (the account service keys it). */
  metricsHeaders: Record<string, string>;
}

/** The stack as `npm start` runs it (scripts/start.ts, real processes), on free ports. */
export class SoakStack {
  private constructor(
    readonly services: SoakService[],
    private readonly process: ReturnType<typeof run>,
  ) {}

  /** Starts the stack with `env` on top of its ports and waits until every service is ready. */
  static async start(env: Record<string, string>): Promise<SoakStack> {
    const ports: Record<string, string> = {};
    for (const s of STACK) ports[`${envPrefix(s)}_PORT`] = String(await freePort());
    const metricsHeaders = (name: ServiceName): Record<string, string> => (name === 'account' ? { 'x-internal-api-key': STACK_KEYS.INTERNAL_API_KEY } : {});
    const services = STACK.map((s) => ({ name: s.name, url: `http://127.0.0.1:${ports[`${envPrefix(s)}_PORT`]}`, metricsHeaders: metricsHeaders(s.name) }));
    const stack = new SoakStack(services, run('scripts/start.ts', { ...env, ...ports }));
    const exited = () => stack.process.child.exitCode !== null;
    try {
      await until(() => exited() || stack.process.out.stdout.includes('fxdesk is up'), 60_000);
      await until(async () => exited() || (await Promise.all(services.map((s) => answers(`${s.url}/health/ready`)))).every(Boolean), 60_000);
      // The strategy starts itself (AUTO_START) once the market lists its symbols, which can be
      // just after every service is ready: until then its pair routes answer 404. The soak
      // starts where a trader does after `npm start`, with the strategy running.
      const strategy = services.find((s) => s.name === 'strategy') as SoakService;
      await until(async () => exited() || (await isRunning(strategy.url)), 60_000);
    } catch (err) {
      await stack.stop();
      throw err;
    }
    if (exited()) throw new Error(`the stack exited before it was ready:\n${stack.process.out.stderr}`);
    return stack;
  }

  url(name: ServiceName): string {
    return (this.services.find((s) => s.name === name) as SoakService).url;
  }

  async scrape(service: SoakService): Promise<Scrape> {
    const res = await fetch(`${service.url}/metrics`, { headers: service.metricsHeaders, signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`${service.name} /metrics answered ${res.status}`);
    return parseMetrics(await res.text());
  }

  /** The lines the stack logged at WARN or above (it runs at LOG_LEVEL=warn), each prefixed with its service. */
  warnings(): string[] {
    const { stdout, stderr } = this.process.out;
    return `${stdout}\n${stderr}`.split('\n').filter((line) => / (WARN|ERROR|FATAL) /.test(line));
  }

  /** Each service's process id (Linux: the launcher's children, by the entry they run). */
  pids(): Map<ServiceName, number> {
    const pids = new Map<ServiceName, number>();
    const parent = this.process.child.pid;
    let children: string[];
    try {
      children = fs.readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8').trim().split(/\s+/);
    } catch {
      return pids;
    }
    for (const pid of children) {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const service = STACK.find((s) => cmdline.includes(`services/${s.name}/src/server.ts`));
      if (service) pids.set(service.name, Number(pid));
    }
    return pids;
  }

  /** The last lines the stack printed on stderr. */
  stderrTail(lines = 20): string {
    return this.process.out.stderr.trim().split('\n').slice(-lines).join('\n');
  }

  /** Ctrl-C, as a user stops `npm start`; resolves with the launcher's exit code. */
  async stop(): Promise<number | null> {
    if (this.process.child.exitCode === null) this.process.child.kill('SIGINT');
    return (await this.process.done).code;
  }
}

/** Whether the strategy at `url` says it is running. */
async function isRunning(url: string): Promise<boolean> {
  const res = await fetch(`${url}/status`, { signal: AbortSignal.timeout(5_000) });
  return res.ok && ((await res.json()) as { running?: boolean }).running === true;
}
