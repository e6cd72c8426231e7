import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ActionRecord } from '@fxdesk/schemas';

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
