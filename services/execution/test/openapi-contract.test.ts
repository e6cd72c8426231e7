import { createHash } from 'node:crypto';
import type { App } from '@fxdesk/core';
import { checkOpenApiContract, type ContractReport, type ExampleRequest } from '@fxdesk/core/testing';
import { subtractDecimal } from '@fxdesk/primitives';
import { afterAll, describe, expect, it } from 'vitest';
import { API_KEY, NOW, postSignal, signal, simulatedApp } from './helpers.js';

const market = signal();

/** A ticket the examples name for "a position (or order) opened for this request": the key's own. */
const FRESH = '9999999999999999999';
const ACTION_PATH = /^\/v1\/(positions|orders)\/[^/?]+(\/close)?(\?|$)|^\/v1\/positions\/close-all(\?|$)/;

/**
 * The suite generates no header parameters, so without help every action would stop at its
 * missing Idempotency-Key (422). This stand-in for a client gives the action requests in turn
 * none, a key of the request's own (sent again, it is replayed) and a key of the method and route
 * alone (another ticket or body under it is 409 idempotency_conflict). A request naming the
 * FRESH ticket acts on a position or order opened for its key, so closes, modifications and
 * cancels reach their success paths however many the flatten before them closed.
 */
function keyingFetch(app: App, realFetch: typeof fetch): typeof fetch {
  const freshTickets = new Map<string, string>();
  const hash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 24);

  async function freshTicket(key: string, kind: 'position' | 'order'): Promise<string> {
    let ticket = freshTickets.get(key);
    if (ticket === undefined) {
      const res = await postSignal(app, signal(kind === 'order' ? { execution_type: 'limit', entry_price: '1.00000', volume: '0.01' } : { volume: '0.01' }));
      expect(res.statusCode).toBe(200);
      const { tickets } = res.json<{ tickets: { order: string; position: string | null } }>();
      ticket = kind === 'order' ? tickets.order : (tickets.position as string);
      freshTickets.set(key, ticket);
    }
    return ticket;
  }

  let sent = 0;
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const method = init?.method ?? 'GET';
    if (method === 'GET' || !ACTION_PATH.test(url.pathname)) return realFetch(input, init);
    const body = typeof init?.body === 'string' ? init.body : '';
    const request = `${method} ${url.pathname}${url.search} ${body}`;
    const mode = sent++ % 3;
    if (mode === 0) return realFetch(input, init);
    const key = mode === 1 ? `own-${hash(request)}` : `shared-${hash(`${method} ${url.pathname.replace(/\/\d+(\/|$)/, '/{ticket}$1')}`)}`;
    if (url.pathname.includes(FRESH))
      url.pathname = url.pathname.replace(FRESH, await freshTicket(key, url.pathname.startsWith('/v1/orders') ? 'order' : 'position'));
    return realFetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), 'idempotency-key': key } });
  };
}

const realFetch = globalThis.fetch;

/** Filled in by `build`, once a position tells the price the stops are set around. */
const examples: Record<string, ExampleRequest[]> = {
  // Valid by the rules across fields as well: placed once, then replayed.
  'POST /v1/signals': [{ body: market }, { body: signal({ execution_type: 'limit', entry_price: '1.0000', direction: 'buy' }) }],
  'GET /v1/signals/{signal_id}': [{ path: { signal_id: market.signal_id as string } }],
  'POST /v1/positions/{ticket}/close': [{ path: { ticket: FRESH } }, { path: { ticket: FRESH }, body: { volume: '0.01' } }],
  'DELETE /v1/orders/{ticket}': [{ path: { ticket: FRESH } }],
  'POST /v1/positions/close-all': [{ body: { symbol: 'EURUSD' } }, { body: { source: 'tradingview' } }],
  'GET /v1/deals': [
    { query: { from: new Date(NOW - 3_600_000).toISOString(), to: new Date(NOW + 3_600_000).toISOString() } },
    { query: { from: new Date(NOW - 3_600_000).toISOString(), to: new Date(NOW + 3_600_000).toISOString(), source: 'tradingview', limit: '1' } },
  ],
};

/** Statuses each route after entry must have answered among its generated requests. */
const REACHED: Record<string, number[]> = {
  'GET /v1/positions': [200, 422],
  'GET /v1/orders': [200, 422],
  'POST /v1/positions/close-all': [200, 409, 422],
  'POST /v1/positions/{ticket}/close': [200, 409, 422],
  'PATCH /v1/positions/{ticket}': [200, 409, 422],
  'DELETE /v1/orders/{ticket}': [200, 409, 422],
  'GET /v1/actions': [200, 422],
  'GET /v1/deals': [200, 422],
};

describe('execution OpenAPI contract', () => {
  let app: App | undefined;
  afterAll(async () => {
    globalThis.fetch = realFetch;
    await app?.close();
  });

  it('answers only documented statuses with documented bodies, 200 generated requests per operation, the actions’ success and refusals included', async () => {
    ({ app } = await simulatedApp({ env: { BODY_LIMIT_BYTES: '4096' } }));
    const opened = await postSignal(app, signal({ volume: '0.01' }));
    const { price } = opened.json<{ result: { price: string } }>().result;
    examples['PATCH /v1/positions/{ticket}'] = [
      { path: { ticket: FRESH }, body: { sl: subtractDecimal(price, '0.01000') } },
      { path: { ticket: FRESH }, body: { tp: null } },
    ];
    globalThis.fetch = keyingFetch(app, realFetch);
    const report: ContractReport = await checkOpenApiContract(app, { credentials: { apiKey: API_KEY }, bodyLimitBytes: 4096, examples });
    console.info(
      `execution contract, statuses answered per operation:\n  ${Object.entries(report)
        .map(([op, statuses]) => `${op}: ${JSON.stringify(statuses)}`)
        .join('\n  ')}`,
    );
    for (const [op, statuses] of Object.entries(report))
      expect(
        Object.values(statuses).reduce((a, b) => a + b, 0),
        op,
      ).toBeGreaterThanOrEqual(200);
    for (const [op, statuses] of Object.entries(REACHED)) expect(Object.keys(report[op] ?? {}).map(Number), op).toEqual(expect.arrayContaining(statuses));
  }, 600_000);
});
