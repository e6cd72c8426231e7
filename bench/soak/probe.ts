/**
 * The soak's turn probe: probeTurns on each service's /health/live, in a process of its own so
 * that the load generator's busy event loop does not delay reading the answers (a late read would
 * count the server's later work too). Until SIGTERM; then it prints one JSON line with each
 * service's worst turn in its main thread's CPU time and how many answers it got.
 */
import { pathToFileURL } from 'node:url';
import { probeTurns, run, until } from '@fxdesk/core/testing';

export interface ProbeTarget {
  name: string;
  url: string;
  pid: number;
}

/** What the probe saw of one service. */
export interface TurnFigures {
  worstCpuMs: number;
  answers: number;
}

/** Starts probing `targets` in a process of its own; `stop` ends it and gives each one's figures. */
export async function startTurnProbe(targets: ProbeTarget[]): Promise<{ stop: () => Promise<Map<string, TurnFigures>> }> {
  const probe = run('bench/soak/probe.ts', {}, [JSON.stringify(targets)]);
  await until(() => probe.out.stdout.startsWith('probing\n') || probe.child.exitCode !== null, 60_000);
  return {
    stop: async () => {
      probe.child.kill('SIGTERM');
      const { code, stdout, stderr } = await probe.done;
      const last = stdout.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !last.startsWith('{')) throw new Error(`the turn probe exited ${code}:\n${stderr}`);
      return new Map(Object.entries(JSON.parse(last) as Record<string, TurnFigures>));
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const targets = JSON.parse(process.argv[2] ?? '[]') as ProbeTarget[];
  const probes = targets.map((t) => [t.name, probeTurns(`${t.url}/health/live`, t.pid)] as const);
  process.once('SIGTERM', () => {
    void Promise.all(probes.map(([, probe]) => probe.stop())).then(() => {
      const figures = Object.fromEntries(probes.map(([name, probe]) => [name, { worstCpuMs: probe.worstCpuMs(), answers: probe.answers() }]));
      process.stdout.write(`${JSON.stringify(figures)}\n`);
      process.exit(0);
    });
  });
  process.stdout.write('probing\n');
}
