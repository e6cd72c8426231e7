/** Messages between the benchmark and the server it forks. */
export type ToServer = { type: 'report' } | { type: 'stop' };
export type FromServer =
  { type: 'ready'; port: number } | { type: 'report'; rssBytes: number; cpuMicros: number; ticksPublished: number; dropped: number; clients: number };

/** The symbols every benchmark tick cycles through; clients subscribe to all of them. */
export const BENCH_SYMBOLS = ['EURUSD', 'GBPUSD', 'USDJPY', 'AUDUSD', 'USDCHF'] as const;

export interface ServerArgs {
  rate: number;
  clients: number;
  /** A replica on this Redis (service-server.ts only). */
  redisUrl: string | undefined;
}

export function parseServerArgs(argv: string[]): ServerArgs {
  return { rate: Number(argv[2]), clients: Number(argv[3]), redisUrl: argv[4] };
}

/** User + system CPU time of this process so far, in microseconds. */
export function cpuMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

export function send(message: FromServer): void {
  process.send?.(message);
}
