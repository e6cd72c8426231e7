/** The real execution server (server.ts through tsx) for the process tests, and the calls they make to it over HTTP. */
import { randomUUID } from 'node:crypto';
import { answers, freePort, run } from '@fxdesk/core/testing';

export const SERVER = 'services/execution/src/server.ts';
export const PROCESS_KEY = 'process-test-key';

export type ServerProcess = ReturnType<typeof run> & {
  port: number;
  submit(body: object): Promise<Response>;
  getSignal(signalId: string): Promise<Response>;
  /** The orderSend calls its terminal received since start, read from /metrics. */
  orderSendCalls(): Promise<number>;
};

/**
 * Starts the server with `env` (DATA_DIR at least) on `port` (a free one by default), trading on
 * the simulated terminal round the clock, and waits until /health/ready answers 200. `args`: the server's command line (`--reset`).
 */
export async function startServer(env: Record<string, string>, port?: number, args: string[] = []): Promise<ServerProcess> {
  const listen = port ?? (await freePort());
  const base = `http://127.0.0.1:${listen}`;
  const server = run(
    SERVER,
    { PORT: String(listen), API_KEY: PROCESS_KEY, TRADING_ENABLED: 'true', SIM_MARKET_HOURS: 'false', LOG_LEVEL: 'warn', ...env },
    args,
  );
  const started: ServerProcess = {
    ...server,
    port: listen,
    submit: (body) =>
      fetch(`${base}/v1/signals`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': PROCESS_KEY }, body: JSON.stringify(body) }),
    getSignal: (signalId) => fetch(`${base}/v1/signals/${signalId}`, { headers: { 'x-api-key': PROCESS_KEY } }),
    orderSendCalls: async () => {
      const text = await (await fetch(`${base}/metrics`)).text();
      const match = /fxdesk_execution_terminal_calls\{method="orderSend"\} (\d+)/.exec(text);
      if (!match) throw new Error('no orderSend counter in /metrics');
      return Number(match[1]);
    },
  };
  const deadline = Date.now() + 60_000;
  while (!(await answers(`${base}/health/ready`))) {
    if (server.child.exitCode !== null) throw new Error(`the server exited ${server.child.exitCode}: ${server.out.stderr}`);
    if (Date.now() > deadline) throw new Error(`the server on port ${listen} was not ready within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return started;
}

/** Kills every process of `servers` still running with SIGKILL and waits for them. */
export async function killAll(servers: ServerProcess[]): Promise<void> {
  for (const server of servers) if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  await Promise.all(servers.map((s) => s.done));
}

/** A market buy of EURUSD from the desk's strategy, occurring now, with a fresh signal_id. */
export function marketBuy(volume = '0.10') {
  return {
    signal_id: randomUUID(),
    occurred_at: new Date().toISOString(),
    execution_type: 'market',
    symbol: 'EURUSD',
    direction: 'buy',
    volume,
    source: 'fxdesk-strategy',
  };
}
