import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ExecutionClient, NotificationClient, StrategyClient, type DeliveryRecord } from '@fxdesk/client';
import { SYMBOL_SPECS } from '@fxdesk/broker';
import type { StrategySignal } from '@fxdesk/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answers, freePort, run, until } from '@fxdesk/core/testing';

/**
 * The desk end to end: market-data, execution, account, notification and strategy as real
 * processes on free ports, over one simulated market (same SIM_SEED, the same tick grid in every
 * process); the account service reads the execution service's terminal, as in the stack.
 * Market hours are off (this may run on a weekend) and the strategy decides on M1 candles over
 * every listed pair, so the first signal comes at the start (from the candle that just closed)
 * or at the next minute's close.
 */

const SEED = 'e2e-desk';
const KEYS = { marketData: 'md-e2e-key-1', execution: 'exec-e2e-key-1', account: 'account-e2e-key-1', notification: 'notify-e2e-key-1' };
const CHAT_ID = '424242';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-e2e-'));
const market = { SIM_SEED: SEED, SIM_MARKET_HOURS: 'false', SIM_TICK_INTERVAL_MS: '100' };
const common = { HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...market };

type Process = ReturnType<typeof run>;
const processes: Process[] = [];
const url: Record<'marketData' | 'execution' | 'account' | 'notification' | 'strategy', string> = {
  marketData: '',
  execution: '',
  account: '',
  notification: '',
  strategy: '',
};

function spawn(service: string, port: number, env: Record<string, string>): string {
  processes.push(run(`services/${service}/src/server.ts`, { ...common, PORT: String(port), ...env }));
  return `http://127.0.0.1:${port}`;
}

describe('the desk end to end', () => {
  let strategy: StrategyClient;
  let execution: ExecutionClient;
  let notification: NotificationClient;

  beforeAll(async () => {
    const [mdPort, exPort, acPort, noPort, stPort] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
    url.marketData = spawn('market-data', mdPort, { API_KEY: KEYS.marketData });
    url.execution = spawn('execution', exPort, {
      API_KEY: KEYS.execution,
      TRADING_ENABLED: 'true',
      ALLOWED_SYMBOLS: SYMBOL_SPECS.map((s) => s.symbol).join(','),
    });
    url.account = spawn('account', acPort, { INTERNAL_API_KEY: KEYS.account, EXECUTION_URL: url.execution, EXECUTION_API_KEY: KEYS.execution });
    url.notification = spawn('notification', noPort, { NOTIFICATION_API_KEY: KEYS.notification, CHAT_APP_CHAT_IDS: CHAT_ID });
    url.strategy = spawn('strategy', stPort, {
      MARKET_DATA_URL: url.marketData,
      MARKET_DATA_API_KEY: KEYS.marketData,
      EXECUTION_URL: url.execution,
      EXECUTION_API_KEY: KEYS.execution,
      NOTIFICATION_URL: url.notification,
      NOTIFICATION_API_KEY: KEYS.notification,
      TIMEFRAME: 'M1',
      INSTRUMENTS: SYMBOL_SPECS.map((s) => s.instrument).join(','),
      MIN_CONFLUENCE: '1',
      // M1 ranges are small: wider stops keep them beyond the simulated terminal's stops level.
      MIN_STOP_ATR: '2',
      WARMUP_CANDLES: '120',
      CANDLE_CLOSE_DELAY_MS: '500',
      // The test polls faster than a person would; the spec's 60 GETs a minute is tested elsewhere.
      RATE_LIMIT_GET_PER_MINUTE: '100000',
    });
    try {
      await until(
        async () =>
          (
            await Promise.all(
              [
                `${url.marketData}/health/ready`,
                `${url.execution}/health/ready`,
                `${url.account}/health/ready`,
                `${url.notification}/health/live`,
                `${url.strategy}/health/live`,
              ].map(answers),
            )
          ).every(Boolean),
        40_000,
      );
    } catch (err) {
      for (const p of processes) process.stderr.write(p.out.stderr);
      throw err;
    }
    strategy = new StrategyClient({ baseUrl: url.strategy });
    execution = new ExecutionClient({ baseUrl: url.execution, apiKey: KEYS.execution });
    notification = new NotificationClient({ baseUrl: url.notification, apiKey: KEYS.notification });
  }, 60_000);

  afterAll(async () => {
    await Promise.all([strategy?.close(), execution?.close(), notification?.close()]);
    for (const p of processes) p.child.kill('SIGTERM');
    await Promise.all(processes.map((p) => p.done));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('turns market data into a signal, its order at the execution service, its trade at the account service and its delivery record at the notification service', async () => {
    const started = await strategy.start({ dry_run: false });
    expect(started.instruments).toHaveLength(SYMBOL_SPECS.length);
    await until(async () => (await strategy.pairs()).every((p) => p.status === 'monitoring'), 30_000);

    // The first signal that traded, its announcement settled. A signal can be refused on its way
    // (the market moves between the candle close and the order), so a refusal alone is no failure;
    // a desk that never trades is, and then the outcomes it saw are in the message.
    const traded = new Set(['filled', 'partially_filled', 'placed']);
    let signal: StrategySignal | undefined;
    let settled: StrategySignal[] = [];
    try {
      await until(async () => {
        const { signals } = await strategy.signals({ limit: 100 });
        settled = signals.filter((s) => s.execution.status !== 'pending' && s.notification.status !== 'pending');
        signal = settled.find((s) => traded.has(s.execution.status));
        return signal !== undefined;
      }, 150_000);
    } catch (err) {
      const outcomes = settled.map((s) => `${s.instrument} ${s.execution.status} ${s.execution.code ?? ''}`).join('; ');
      throw new Error(`no signal traded; settled: ${outcomes || 'none'}`, { cause: err });
    }
    const found = signal as StrategySignal;

    const latest = await strategy.latestSignal(found.instrument);
    expect(latest.signal?.signal_id).toBeDefined();
    expect(latest.signal?.instrument).toBe(found.instrument);
    expect(found.dry_run).toBe(false);

    const order = await execution.signal(found.signal_id);
    expect(order.request).toMatchObject({
      signal_id: found.signal_id,
      symbol: found.symbol,
      source: 'fxdesk-strategy',
      direction: found.type === 'LONG' ? 'buy' : 'sell',
    });
    expect(order.state).toBe(found.execution.status);
    expect(['filled', 'partially_filled', 'placed'], `order ${order.state}: ${JSON.stringify(order.error)}`).toContain(order.state);
    expect(found.execution.tickets?.order).toBe(order.tickets.order);

    // The account service reads the account the order traded: the fill is among its changes, and
    // while the venue still holds the position (read after the account: a closed one never reopens), so do the details.
    const position = order.tickets.position as string;
    const accountRead = async (route: string) =>
      (await fetch(`${url.account}/api/v1/account/${route}`, { headers: { 'x-internal-api-key': KEYS.account } })).json();
    const changes = await accountRead('changes?sinceTransactionId=0');
    expect(changes.tradesOpened.map((t: { id: string }) => t.id)).toContain(position);
    const details = (await accountRead('details')).account;
    if ((await execution.positions()).positions.some((p) => p.ticket === position)) {
      expect(details.trades.map((t: { id: string }) => t.id)).toContain(position);
    }

    expect(found.notification.status).toBe('sent');
    let delivery: DeliveryRecord | undefined;
    await until(async () => {
      const { items } = await notification.deliveries({ source: 'fxdesk-strategy', limit: 500 });
      delivery = items.find((d) => d.requestId === found.notification.request_id);
      return delivery !== undefined;
    }, 10_000);
    expect(delivery).toMatchObject({ channel: 'CHAT_APP', recipient: CHAT_ID, source: 'fxdesk-strategy' });
    expect(found.notification.delivery_ids).toContain(delivery?.id);

    const status = await strategy.status();
    expect(status.running).toBe(true);
    expect(status.total_signals_today).toBeGreaterThan(0);
    expect(status.downstream.market_data.state).toBe('ok');
    expect(status.downstream.execution.state).toBe('ok');
    expect(status.downstream.notification.state).toBe('ok');

    const stopped = await strategy.stop();
    expect(stopped.signals_generated).toBeGreaterThan(0);
  }, 240_000);
});
