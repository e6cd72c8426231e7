/**
 * `npm start`: runs the whole desk from one terminal. `npm start -- <service>` (or
 * `npm run start:<service>`) runs one service alone on its own default port. `--reset` is passed
 * on to every service started: each forgets its databases' identity markers (see the README).
 *
 * Reads `.env` when present (the shell wins over the file), prefixes every log line with its
 * service, stops everything on Ctrl-C, and exits non-zero when a service dies.
 */
import { venueMixProblem } from '@fxdesk/core';
import type { StrategyStatus } from '@fxdesk/schemas';
import { Launcher, loadBaseEnv, serviceCommand, untilReady } from './launcher.js';
import { describeDevKeys, serviceEnv, stackPortOf } from './stack-env.js';
import { STACK, type StackService } from './stack.js';

/** The options passed on to every service's server, apart from the service names. */
const SERVICE_FLAGS = ['--reset'];

function selectServices(args: string[]): StackService[] {
  if (args.length === 0) return [...STACK];
  const unknown = args.filter((a) => !STACK.some((s) => s.name === a));
  if (unknown.length > 0) {
    process.stderr.write(`unknown service ${unknown.join(', ')}; choose from ${STACK.map((s) => s.name).join(', ')}\n`);
    process.exit(2);
  }
  return STACK.filter((s) => args.includes(s.name));
}

/**
 * What the strategy is doing as the desk comes up, from its /status: running and how, or why not.
 * A start at boot waits for the market to list its symbols, so a strategy still starting by
 * itself is read again for a few seconds (a few of spec 000's 60 GETs a minute).
 */
async function strategyLine(statusUrl: string): Promise<string> {
  try {
    const read = async () => (await (await fetch(statusUrl, { signal: AbortSignal.timeout(5000) })).json()) as StrategyStatus;
    let status = await read();
    for (let i = 0; i < 10 && status.idle?.reason === 'starting'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      status = await read();
    }
    if (status.idle?.reason === 'starting') return `strategy: ${status.idle.message}`;
    if (status.running) {
      const mode = status.dry_run ? 'paper trading (dry run)' : 'sending orders to the execution service';
      return `strategy: running on ${status.active_pairs.join(', ')}, ${mode} (POST /stop stops it, and it stays stopped)`;
    }
    return `strategy: not running: ${status.idle?.message ?? 'see GET /status'}`;
  } catch (err) {
    return `strategy: its status could not be read (${err instanceof Error ? err.message : String(err)})`;
  }
}

async function main(): Promise<void> {
  const base = loadBaseEnv();
  const flags = process.argv.slice(2).filter((a) => SERVICE_FLAGS.includes(a));
  const names = process.argv.slice(2).filter((a) => !SERVICE_FLAGS.includes(a));
  const services = selectServices(names);
  const alone = services.length === 1 && names.length > 0;
  // Real orders on another source's prices, or roles on different brokers: refused before anything starts.
  const mixed = alone ? null : venueMixProblem(base);
  if (mixed) {
    process.stderr.write(`fxdesk: ${mixed}\n`);
    process.exit(2);
  }
  const launcher = new Launcher({ names: services.map((s) => s.name), rawLogs: base.LOG_FORMAT === 'json' });
  const width = Math.max(...services.map((s) => s.name.length));
  const devKeys = new Set<string>();
  const notes: string[] = [];

  for (const service of services) {
    const prepared = alone ? { env: base, devKeys: [], notes: [] } : serviceEnv(service, base);
    prepared.devKeys.forEach((k) => devKeys.add(k));
    notes.push(...prepared.notes.map((n) => `${service.name}: ${n}`));
    const command = serviceCommand(service.name);
    launcher.spawn({ name: service.name, command: command.command, args: [...command.args, ...flags], env: prepared.env });
  }

  const started = Date.now();
  const ports = services.map((s) => (alone ? Number(base.PORT ?? s.defaultPort) : stackPortOf(s, base)));
  // Up means every service answers its readiness probe; until then, every 30 s, which are not and why.
  const probes = Object.fromEntries(services.map((s, i) => [s.name, `http://127.0.0.1:${ports[i]}/health/ready`]));
  const isReady = await untilReady(probes, {
    slowEveryMs: 30_000,
    isStopping: () => launcher.isStopping,
    onSlow: (pending) => {
      const which = pending.map(([name, detail]) => `${name} (${detail})`).join(', ');
      process.stdout.write(`fxdesk is still starting after ${((Date.now() - started) / 1000).toFixed(0)} s: ${which}\n`);
    },
  });
  if (!isReady || launcher.isStopping) return;
  const lines = services.map((s, i) => `  ${s.name.padEnd(width)}  http://localhost:${ports[i]}  docs http://localhost:${ports[i]}/docs`);
  process.stdout.write(`\nfxdesk is up in ${((Date.now() - started) / 1000).toFixed(1)} s\n${lines.join('\n')}\n`);
  process.stdout.write(describeDevKeys(devKeys));
  const strategyAt = services.findIndex((s) => s.name === 'strategy');
  if (strategyAt >= 0) process.stdout.write(`${await strategyLine(`http://127.0.0.1:${ports[strategyAt]}/status`)}\n`);
  for (const note of notes) process.stdout.write(`${note}\n`);
  process.stdout.write('Ctrl-C stops everything (a second Ctrl-C does not wait for work in flight).\n\n');
}

await main();
