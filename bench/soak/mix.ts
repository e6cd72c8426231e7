import { STACK_KEYS } from '../../scripts/stack-env.js';
import { dailyCandles, LONG_BACKTEST, nestedBodies } from './attacks.js';
import { executionCalls, notificationCalls, polling } from './calls.js';
import { Pacer, Tally, type Call } from './load.js';
import type { ServiceName, SoakStack } from './stack.js';
import { StreamClients } from './streams.js';

/** The soak's load: streams held open, and calls a second to each service. */
export const LOAD = {
  marketDataStreams: 50,
  strategyEventStreams: 5,
  signalsPerSecond: 10,
  executionReadsPerSecond: 2,
  notificationsPerSecond: 5,
  notificationReadsPerSecond: 1,
  strategyPollsPerSecond: 5,
  accountPollsPerSecond: 5,
  marketDataReadsPerSecond: 2,
  /** Each of market-data's and execution's D1 candle routes: 1,000 days of EURUSD. */
  dailyCandlesPerSecond: 0.5,
  /** To each service: 1 MB of nested arrays, in turn to an unknown route and to a real one. */
  nestedBodiesPerSecond: 0.5,
};

/** Each tick stream's `symbols` query; none: every symbol the service serves. */
const STREAM_QUERIES = ['?symbols=EURUSD,GBPUSD,USDJPY,AUDUSD', '?symbols=EURUSD', '?symbols=XAUUSD,USDCHF,GBPUSD', ''];
const STRATEGY_PATHS = ['/status', '/pairs', '/signals?limit=20', '/pairs/EUR_USD/candles?limit=100'];
const CONSOLE_PATHS = ['/console/services', '/console/account', '/console/orders?limit=20', '/console/deliveries?limit=20'];
const ACCOUNT_PATHS = ['/api/v1/account/summary', '/api/v1/account/details', '/api/v1/account/instruments', '/api/v1/account/snapshots?limit=10'];
const MARKET_DATA_PATHS = ['/v1/market-data/tick?symbol=EURUSD', '/v1/market-data/candles?symbol=GBPUSD&timeframe=M1&count=100', '/v1/symbols'];

export interface Load {
  /** What the load saw of each service. */
  tallies: Map<ServiceName, Tally>;
  ticks: StreamClients;
  events: StreamClients;
  /** Calls sent so far, to every service. */
  sent(): number;
  /** Closes the streams, stops sending and waits for the answers in flight. */
  stop(): Promise<void>;
}

/**
 * Starts the load on a running stack: the tick streams, and the strategy's /events streams and
 * /console read-through routes when it has them (the console's parts land one by one).
 */
export async function startLoad(stack: SoakStack, has: { consoleRoutes: boolean; events: boolean }): Promise<Load> {
  const tallies = new Map<ServiceName, Tally>(stack.services.map((s) => [s.name, new Tally()]));
  const pace = (name: ServiceName, perSecond: number, next: ConstructorParameters<typeof Pacer>[2]) =>
    new Pacer(stack.url(name), perSecond, next, tallies.get(name) as Tally);
  const execution = executionCalls(STACK_KEYS.EXECUTION_API_KEY);
  const notificationKey = { 'x-api-key': STACK_KEYS.NOTIFICATION_API_KEY };
  const keys: Record<ServiceName, Record<string, string>> = {
    strategy: {},
    execution: { 'x-api-key': STACK_KEYS.EXECUTION_API_KEY },
    account: { 'x-internal-api-key': STACK_KEYS.INTERNAL_API_KEY },
    'market-data': { 'x-api-key': STACK_KEYS.MARKET_DATA_API_KEY },
    notification: notificationKey,
  };

  const ticks = new StreamClients(stack.url('market-data'), { 'x-api-key': STACK_KEYS.MARKET_DATA_API_KEY });
  await ticks.open(Array.from({ length: LOAD.marketDataStreams }, (_, i) => `/v1/stream/ticks${STREAM_QUERIES[i % STREAM_QUERIES.length]}`));
  const events = new StreamClients(stack.url('strategy'), {});
  if (has.events) await events.open(Array.from({ length: LOAD.strategyEventStreams }, () => '/events'));
  const pacers = [
    pace('execution', LOAD.signalsPerSecond, execution.submissions),
    pace('execution', LOAD.executionReadsPerSecond, execution.reads),
    pace('notification', LOAD.notificationsPerSecond, notificationCalls(STACK_KEYS.NOTIFICATION_API_KEY)),
    pace('notification', LOAD.notificationReadsPerSecond, polling(['/notifications?limit=20', '/notifications?limit=20&source=soak'], notificationKey)),
    pace('strategy', LOAD.strategyPollsPerSecond, polling(has.consoleRoutes ? [...STRATEGY_PATHS, ...CONSOLE_PATHS] : STRATEGY_PATHS)),
    pace('account', LOAD.accountPollsPerSecond, polling(ACCOUNT_PATHS, { 'x-internal-api-key': STACK_KEYS.INTERNAL_API_KEY })),
    pace('market-data', LOAD.marketDataReadsPerSecond, polling(MARKET_DATA_PATHS, { 'x-api-key': STACK_KEYS.MARKET_DATA_API_KEY })),
    pace('market-data', LOAD.dailyCandlesPerSecond, dailyCandles('market-data', keys['market-data'])),
    pace('execution', LOAD.dailyCandlesPerSecond, dailyCandles('execution', keys.execution)),
    ...stack.services.map(({ name }) => pace(name, LOAD.nestedBodiesPerSecond, nestedBodies(name, keys[name]))),
  ];
  await postLongBacktest(stack.url('strategy'), tallies.get('strategy') as Tally);
  return {
    tallies,
    ticks,
    events,
    sent: () => [...tallies.values()].reduce((sum, t) => sum + t.sent, 0),
    stop: async () => {
      ticks.close();
      events.close();
      await Promise.all(pacers.map((p) => p.stop()));
    },
  };
}

/** The long lab job, posted once: it reads its history from market-data and runs on the strategy's worker threads. */
async function postLongBacktest(strategy: string, tally: Tally): Promise<void> {
  const call: Call = { label: 'POST /backtests (long)', bad: false, method: 'POST', path: '/backtests', body: JSON.stringify(LONG_BACKTEST) };
  tally.sent++;
  try {
    const res = await fetch(new URL(call.path, strategy), { method: 'POST', headers: { 'content-type': 'application/json' }, body: call.body });
    tally.note(call, res.status, await res.text());
  } catch (err) {
    tally.note(call, err instanceof Error ? err.name : 'error');
  }
}

/** One line saying what the load is. */
export function describeLoad(has: { events: boolean }): string {
  const streams = `${LOAD.marketDataStreams} tick streams${has.events ? ` + ${LOAD.strategyEventStreams} /events streams` : ''}`;
  return (
    `load: ${streams}; per second ${LOAD.signalsPerSecond} signals + ${LOAD.executionReadsPerSecond} reads (execution), ` +
    `${LOAD.notificationsPerSecond} posts + ${LOAD.notificationReadsPerSecond} reads (notification), ${LOAD.strategyPollsPerSecond} polls (strategy), ` +
    `${LOAD.accountPollsPerSecond} polls (account), ${LOAD.marketDataReadsPerSecond} reads (market-data); ` +
    `${LOAD.dailyCandlesPerSecond} reads of 1,000 D1 candles on each of market-data and execution, ${LOAD.nestedBodiesPerSecond} 1 MB nested bodies to each service, ` +
    `and a backtest of ${LONG_BACKTEST.instruments.length} pairs, ${LONG_BACKTEST.timeframe}, ${LONG_BACKTEST.from} to ${LONG_BACKTEST.to}`
  );
}
