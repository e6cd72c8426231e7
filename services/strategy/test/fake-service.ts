import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ActionAnswer, ActionRecord, OpenPosition, SignalResult, SignalSubmissionInput } from '@fxdesk/schemas';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export interface FakeAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface FakeService {
  url: string;
  requests: RecordedRequest[];
  /** Replaces how the service answers from now on. */
  answer: (handler: (request: RecordedRequest) => FakeAnswer) => void;
  close: () => Promise<void>;
}

/** A downstream service on a real local port that records each request and answers as told. */
export async function fakeService(handler: (request: RecordedRequest) => FakeAnswer): Promise<FakeService> {
  const requests: RecordedRequest[] = [];
  let current = handler;
  const server = http.createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: text ? (JSON.parse(text) as unknown) : undefined };
      requests.push(recorded);
      const answer = current(recorded);
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answer: (next) => (current = next),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The fxdesk error envelope a downstream service answers with. */
export function envelope(code: string, message = code): Record<string, unknown> {
  return { error: true, code, message, timestamp: new Date().toISOString() };
}

/**
 * The execution service's answer to an order it filled, for the signal_id it was sent; the
 * leader's reads besides (the live journal's deals and actions, the exit rules' positions) find nothing.
 */
export const filled = (request: RecordedRequest): FakeAnswer => (request.method === 'GET' ? nothingToRead(request) : filledOrder(request));

/** The execution service's reads with nothing to report: no deals, no actions, no positions. */
export function nothingToRead(request: RecordedRequest): FakeAnswer {
  if (request.url.startsWith('/v1/deals')) return { status: 200, body: { deals: [], next_cursor: null } };
  if (request.url.startsWith('/v1/actions')) return { status: 200, body: { actions: [], next_cursor: null } };
  return { status: 200, body: { positions: [] } };
}

const filledOrder = (request: RecordedRequest): FakeAnswer => ({
  status: 200,
  body: {
    signal_id: (request.body as { signal_id: string }).signal_id,
    state: 'filled',
    tickets: { order: '5001', deal: '6001', position: '5001' },
    result: { retcode: 10009, retcode_name: 'TRADE_RETCODE_DONE', requested_volume: '0.1', filled_volume: '0.1', price: '1.1', broker_comment: 'done' },
  },
});

/**
 * The execution service's book as far as the strategy reads and changes it: each order it is sent
 * fills at once under tickets of its own, and its position is listed by GET /v1/positions (by
 * symbol and source, as the service filters them) until a close of its ticket or a close-all takes
 * it away. An order sent again under the same signal_id is replayed: answered as the first time,
 * opening nothing. Deals and actions: none to read.
 */
export class FakeVenue {
  private lastTicket = 5000;
  private readonly fills = new Map<string, SignalResult>();
  private readonly open = new Map<string, OpenPosition>();

  /** The positions open now, oldest first. */
  get positions(): OpenPosition[] {
    return [...this.open.values()];
  }

  /** How the service answers `request` (a handler for {@link fakeService}). */
  readonly answer = (request: RecordedRequest): FakeAnswer => {
    const { pathname, searchParams } = new URL(request.url, 'http://venue');
    if (request.method === 'POST' && pathname === '/v1/signals') return this.fill(request.body as SignalSubmissionInput);
    if (request.method === 'GET' && pathname === '/v1/positions') {
      return { status: 200, body: { positions: this.listed(searchParams.get('symbol'), searchParams.get('source')) } };
    }
    if (request.method === 'POST' && pathname === '/v1/positions/close-all') {
      const filter = (request.body ?? {}) as { symbol?: string; source?: string };
      const closed = this.listed(filter.symbol ?? null, filter.source ?? null).map((p) => this.close(p));
      const key = String(request.headers['idempotency-key'] ?? '');
      return {
        status: 200,
        body: { idempotency_key: key, positions: closed.map((answer) => ({ ticket: answer.ticket, state: 'done', http_status: 200, answer })) },
      };
    }
    const closing = /^\/v1\/positions\/(\d+)\/close$/.exec(pathname);
    if (request.method === 'POST' && closing) {
      const position = this.open.get(closing[1] as string);
      if (!position) return { status: 422, body: envelope('position_not_found', `the terminal holds no open position ${closing[1]}`) };
      return { status: 200, body: this.close(position) };
    }
    return nothingToRead(request);
  };

  private fill(order: SignalSubmissionInput): FakeAnswer {
    const done = this.fills.get(order.signal_id);
    if (done) return { status: 200, body: done, headers: { 'idempotent-replayed': 'true' } };
    const ticket = String(++this.lastTicket);
    const result: SignalResult = {
      signal_id: order.signal_id,
      state: 'filled',
      tickets: { order: ticket, deal: String(Number(ticket) + 1000), position: ticket },
      result: {
        retcode: 10009,
        retcode_name: 'TRADE_RETCODE_DONE',
        requested_volume: order.volume,
        filled_volume: order.volume,
        price: '1.1',
        broker_comment: 'done',
      },
    };
    this.fills.set(order.signal_id, result);
    this.open.set(ticket, {
      ticket,
      symbol: order.symbol,
      side: order.direction,
      volume: order.volume,
      open_price: '1.1',
      sl: order.stop_loss ?? null,
      tp: order.take_profit ?? null,
      profit: '0.00',
      swap: '0.00',
      magic: 0,
      // `<source>:<tag of the signal_id>`, as the service comments an order.
      comment: `${order.source}:${createHash('sha256').update(order.signal_id).digest('hex').slice(0, 12)}`,
      source: order.source,
      opened_at: new Date().toISOString(),
    });
    return { status: 200, body: result };
  }

  private listed(symbol: string | null, source: string | null): OpenPosition[] {
    return this.positions.filter((p) => (symbol === null || p.symbol === symbol) && (source === null || p.source === source));
  }

  private close(position: OpenPosition): ActionAnswer {
    this.open.delete(position.ticket);
    const deal = String(++this.lastTicket + 1000);
    return {
      action_id: `close-${position.ticket}`,
      kind: 'close',
      ticket: position.ticket,
      state: 'done',
      result: { retcode: 10009, retcode_name: 'TRADE_RETCODE_DONE', order: null, deal, volume: position.volume, price: '1.1', broker_comment: 'done' },
    };
  }
}

/** The notification service's answer to an announcement it accepted. */
export const accepted = (): FakeAnswer => ({
  status: 201,
  body: { requestId: '7d1f3c2e-5b6a-4c8d-9e0f-1a2b3c4d5e6f', deliveryIds: ['0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0'], deliveriesAttempted: 1 },
});

/** An action record as GET /v1/actions lists it: a done close of `ticket` unless `fields` say otherwise. */
export function actionRecord(ticket: string, key: string, fields: Partial<ActionRecord> = {}): ActionRecord {
  const at = fields.received_at ?? '2026-01-05T12:00:00.000Z';
  return {
    action_id: key,
    idempotency_key: key,
    kind: 'close',
    ticket,
    state: 'done',
    request: {},
    order_comment: 'close:0123456789abcdef0123456',
    http_status: 200,
    result: null,
    error: null,
    reconciliation: null,
    received_at: at,
    completed_at: at,
    updated_at: at,
    ...fields,
  };
}
