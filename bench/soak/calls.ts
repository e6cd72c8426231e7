import { randomUUID } from 'node:crypto';
import type { Call } from './load.js';

/** Cycles through `paths`, GETs with `headers`. */
export function polling(paths: readonly string[], headers: Record<string, string> = {}): (n: number) => Call {
  return (n) => {
    const path = paths[n % paths.length] as string;
    return { label: `GET ${path}`, bad: false, path, headers };
  };
}

/**
 * Symbols the signals trade: a stop and target distance about four spreads wide (beyond the
 * stops level from the far side of the spread), and limit prices far from where the simulated
 * market wanders (below it to buy, above it to sell), so a limit order rests until it expires.
 */
const SIGNAL_SYMBOLS = [
  { symbol: 'EURUSD', distance: '0.0004', buyLimit: '0.90000', sellLimit: '1.30000' },
  { symbol: 'GBPUSD', distance: '0.0006', buyLimit: '1.00000', sellLimit: '1.60000' },
  { symbol: 'USDJPY', distance: '0.05', buyLimit: '100.000', sellLimit: '200.000' },
] as const;
const LIMIT_EXPIRY_MS = 60_000;

/**
 * POST /v1/signals, 0.01 lot, alternating buy and sell: market orders with a stop and a target
 * (positions close as the market reaches one), and limit orders far from the market that expire
 * after a minute (so neither piles up without end); one in ten an identical retry of an earlier
 * answered signal (answered again, byte for byte); one in five deliberately bad (a wrong type,
 * malformed JSON, no key, an unknown field). The reads: a signal answered before, a page of the list, or candles.
 */
export function executionCalls(key: string) {
  const headers = { 'x-api-key': key };
  const answeredIds: string[] = [];
  let lastAnswered: string | undefined;
  const valid = (n: number): Record<string, unknown> => {
    const { symbol, distance, buyLimit, sellLimit } = SIGNAL_SYMBOLS[n % SIGNAL_SYMBOLS.length] as (typeof SIGNAL_SYMBOLS)[number];
    const direction = Math.floor(n / 2) % 2 === 0 ? 'buy' : 'sell';
    const common = { signal_id: randomUUID(), occurred_at: new Date().toISOString(), symbol, direction, volume: '0.01', source: 'manual' };
    if (n % 2 === 0) return { ...common, execution_type: 'market', stop_loss_distance: distance, take_profit_distance: distance };
    const expiresAt = new Date(Date.now() + LIMIT_EXPIRY_MS).toISOString();
    return { ...common, execution_type: 'limit', entry_price: direction === 'buy' ? buyLimit : sellLimit, expires_at: expiresAt };
  };
  const bad = (n: number): Call => {
    const base = { label: 'bad signal', bad: true, method: 'POST' as const, path: '/v1/signals', headers };
    switch (n % 4) {
      case 0:
        return { ...base, label: 'bad signal (volume a number)', body: JSON.stringify({ ...valid(n), volume: 0.01 }) };
      case 1:
        return { ...base, label: 'bad signal (malformed JSON)', body: JSON.stringify(valid(n)).slice(0, 40) };
      case 2:
        return { ...base, label: 'bad signal (no key)', headers: {}, body: JSON.stringify(valid(n)) };
      default:
        return { ...base, label: 'bad signal (unknown field)', body: JSON.stringify({ ...valid(n), leverage: 500 }) };
    }
  };
  const submissions = (n: number): Call => {
    if (n % 5 === 4) return bad(Math.floor(n / 5));
    if (n % 10 === 3 && lastAnswered) return { label: 'signal retry', bad: false, method: 'POST', path: '/v1/signals', headers, body: lastAnswered };
    const signal = valid(n);
    const body = JSON.stringify(signal);
    return {
      label: `signal (${signal.execution_type as string})`,
      bad: false,
      method: 'POST',
      path: '/v1/signals',
      headers,
      body,
      answered: (status) => {
        if (status !== 200) return;
        lastAnswered = body;
        answeredIds.push(signal.signal_id as string);
        if (answeredIds.length > 100) answeredIds.shift();
      },
    };
  };
  const reads = (n: number): Call => {
    const id = answeredIds[n % Math.max(1, answeredIds.length)];
    if (n % 3 === 0 && id) return { label: 'GET /v1/signals/{id}', bad: false, path: `/v1/signals/${id}`, headers };
    if (n % 3 === 1) return { label: 'GET /v1/signals', bad: false, path: '/v1/signals?limit=20&source=manual', headers };
    return { label: 'GET /v1/market-data/candles', bad: false, path: '/v1/market-data/candles?quote=EURUSD&timeframe=M1&count=100', headers };
  };
  return { submissions, reads };
}

/**
 * POST /notifications to the sandbox chat; one in ten repeats the idempotency key of the one
 * sent two before (answered again, nothing sent); one in five deliberately bad (an empty message, malformed
 * JSON, an unknown channel, a wrong key).
 */
export function notificationCalls(key: string): (n: number) => Call {
  const headers = { 'x-api-key': key };
  const valid = (n: number) => ({ message: `soak message ${n}`, channels: ['CHAT_APP'], source: 'soak', idempotencyKey: `soak-${n}` });
  return (n) => {
    const base = { bad: false, method: 'POST' as const, path: '/notifications', headers };
    switch (n % 10) {
      case 4:
        return { ...base, label: 'bad notification (empty message)', bad: true, body: JSON.stringify({ ...valid(n), message: '' }) };
      case 9:
        return [
          { ...base, label: 'bad notification (malformed JSON)', bad: true, body: JSON.stringify(valid(n)).slice(0, 20) },
          { ...base, label: 'bad notification (unknown channel)', bad: true, body: JSON.stringify({ ...valid(n), channels: ['FAX'] }) },
          { ...base, label: 'bad notification (wrong key)', bad: true, headers: { 'x-api-key': 'not-the-key' }, body: JSON.stringify(valid(n)) },
        ][Math.floor(n / 10) % 3] as Call;
      case 7:
        return { ...base, label: 'notification retry', body: JSON.stringify(valid(n - 2)) };
      default:
        return { ...base, label: 'notification', body: JSON.stringify(valid(n)) };
    }
  };
}
