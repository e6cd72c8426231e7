import {
  ActionAnswerSchema,
  ActionListSchema,
  ClosePositionsAnswerSchema,
  DealListSchema,
  OpenPositionListSchema,
  RestingOrderListSchema,
  SignalListSchema,
  SignalRecordSchema,
  SignalResultSchema,
  SymbolTermsSchema,
  TerminalAccountSchema,
  type ActionAnswer,
  type ActionList,
  type ActionListQuery,
  type BookQuery,
  type ClosePositionBody,
  type ClosePositionsAnswer,
  type ClosePositionsBody,
  type DealList,
  type DealListQuery,
  type ModifyPositionBody,
  type OpenPositionList,
  type RestingOrderList,
  type SignalList,
  type SignalListQuery,
  type SignalRecord,
  type SignalResult,
  type SignalSubmissionInput,
  type SymbolTerms,
  type TerminalAccountAnswer,
} from '@fxdesk/schemas';
import type { z } from 'zod';
import { HttpClient, type ClientOptions, type ServiceCall } from './http.js';

/** Body of a successful POST /v1/signals (spec 001 A). */
export type ExecutionResult = SignalResult;

/** GET /v1/signals/{signal_id}: the durable record of a signal in any state. */
export type ExecutionRecord = SignalRecord;

/** GET /v1/signals query: every filter optional, `limit` 50 when left out; `cursor` is a page's `next_cursor`. */
export type ExecutionListQuery = Partial<SignalListQuery>;

/** Each call ExecutionClient makes, as the service's OpenAPI document names it, with the schema its answer is checked with. */
export const executionCalls = {
  submitSignal: { method: 'POST', path: '/v1/signals', status: 200, schema: SignalResultSchema },
  signal: { method: 'GET', path: '/v1/signals/{signal_id}', status: 200, schema: SignalRecordSchema },
  listSignals: { method: 'GET', path: '/v1/signals', status: 200, schema: SignalListSchema },
  positions: { method: 'GET', path: '/v1/positions', status: 200, schema: OpenPositionListSchema },
  orders: { method: 'GET', path: '/v1/orders', status: 200, schema: RestingOrderListSchema },
  closePosition: { method: 'POST', path: '/v1/positions/{ticket}/close', status: 200, schema: ActionAnswerSchema },
  modifyPosition: { method: 'PATCH', path: '/v1/positions/{ticket}', status: 200, schema: ActionAnswerSchema },
  cancelOrder: { method: 'DELETE', path: '/v1/orders/{ticket}', status: 200, schema: ActionAnswerSchema },
  closeAll: { method: 'POST', path: '/v1/positions/close-all', status: 200, schema: ClosePositionsAnswerSchema },
  listActions: { method: 'GET', path: '/v1/actions', status: 200, schema: ActionListSchema },
  listDeals: { method: 'GET', path: '/v1/deals', status: 200, schema: DealListSchema },
  symbolTerms: { method: 'GET', path: '/v1/symbols/{symbol}', status: 200, schema: SymbolTermsSchema },
  account: { method: 'GET', path: '/v1/account', status: 200, schema: TerminalAccountSchema },
} as const satisfies Record<string, ServiceCall>;

export interface SubmitResult {
  result: ExecutionResult;
  /** The service answered a stored outcome (`Idempotent-Replayed: true`): nothing was traded again. */
  replayed: boolean;
}

/** The answer of an action on a position or an order, and whether it was the stored one. */
export interface ActionOutcome<T> {
  result: T;
  /** The service answered the outcome stored under the Idempotency-Key (`Idempotent-Replayed: true`): nothing was sent again. */
  replayed: boolean;
}

/** GET /v1/actions query: `limit` 50 when left out; `cursor` is a page's `next_cursor`. */
export type ActionsQuery = Partial<ActionListQuery>;

/** GET /v1/deals query: `from` and `to` required, the filters optional, `limit` 100 when left out. */
export type DealsQuery = Omit<DealListQuery, 'limit'> & { limit?: number };

/**
 * Client of the order-execution service (X-API-Key). `submitSignal` is idempotent by
 * `signal_id`, so repeating it after a timeout is safe: the service replays the stored outcome.
 * A refusal throws ServiceError with the service's code (`signal_too_old`, `invalid_stops`,
 * `execution_outcome_unknown`…).
 */
export class ExecutionClient {
  private readonly http: HttpClient;

  constructor(options: ClientOptions) {
    this.http = new HttpClient('execution', options, 'x-api-key');
  }

  async submitSignal(signal: SignalSubmissionInput): Promise<SubmitResult> {
    const res = await this.http.send(executionCalls.submitSignal, { body: signal });
    return { result: res.data, replayed: res.headers['idempotent-replayed'] === 'true' };
  }

  async signal(signalId: string): Promise<ExecutionRecord> {
    return (await this.http.send(executionCalls.signal, { params: { signal_id: signalId } })).data;
  }

  /**
   * Stored signals, newest received first, filtered by state, symbol, source and received time
   * (`from` inclusive, `to` exclusive). Pass `next_cursor` back as `cursor`, with the same
   * filters, for the next page; it is null on the last.
   */
  async listSignals(query: ExecutionListQuery = {}): Promise<SignalList> {
    return (await this.http.send(executionCalls.listSignals, { query })).data;
  }

  /** The terminal's open positions now, filtered by symbol and by the source of their order comment. */
  async positions(query: Partial<BookQuery> = {}): Promise<OpenPositionList> {
    return (await this.http.send(executionCalls.positions, { query })).data;
  }

  /** The terminal's resting pending orders now, filtered as `positions`. */
  async orders(query: Partial<BookQuery> = {}): Promise<RestingOrderList> {
    return (await this.http.send(executionCalls.orders, { query })).data;
  }

  /**
   * Closes `volume` lots of a position, the whole of it without one. Every action is idempotent
   * by `idempotencyKey`: repeat a call whose answer was lost with the same key and the same
   * arguments, never with a new key. A refusal throws ServiceError (`position_not_found`,
   * `invalid_volume`…); an ambiguous outcome throws `execution_outcome_unknown` and is never resent.
   */
  async closePosition(ticket: string, idempotencyKey: string, body: ClosePositionBody = {}): Promise<ActionOutcome<ActionAnswer>> {
    return this.act(executionCalls.closePosition, idempotencyKey, { params: { ticket }, body });
  }

  /** Moves a position's stops: a leg given as a price sets it, null removes it, absent keeps it (idempotent by `idempotencyKey`). */
  async modifyPosition(ticket: string, idempotencyKey: string, body: ModifyPositionBody): Promise<ActionOutcome<ActionAnswer>> {
    return this.act(executionCalls.modifyPosition, idempotencyKey, { params: { ticket }, body });
  }

  /** Cancels a resting pending order (idempotent by `idempotencyKey`). */
  async cancelOrder(ticket: string, idempotencyKey: string): Promise<ActionOutcome<ActionAnswer>> {
    return this.act(executionCalls.cancelOrder, idempotencyKey, { params: { ticket } });
  }

  /**
   * Flattens: closes every open position, or those of one symbol and/or source, one record per
   * position. After a crash or a lost answer, the same key and filter closes only what it had not
   * reached; each position's outcome is listed.
   */
  async closeAll(idempotencyKey: string, body: ClosePositionsBody = {}): Promise<ActionOutcome<ClosePositionsAnswer>> {
    return this.act(executionCalls.closeAll, idempotencyKey, { body });
  }

  /** Stored actions, newest received first; pass `next_cursor` back as `cursor` for the next page. */
  async actions(query: ActionsQuery = {}): Promise<ActionList> {
    return (await this.http.send(executionCalls.listActions, { query })).data;
  }

  /**
   * The terminal's history deals of [from, to) (at most 31 days), oldest first: entries and exits,
   * the venue's stops and closes by hand included. Pass `next_cursor` back as `cursor`, with the
   * same query, for the next page; it is null on the last.
   */
  async deals(query: DealsQuery): Promise<DealList> {
    return (await this.http.send(executionCalls.listDeals, { query })).data;
  }

  /** The venue's terms for a symbol of ALLOWED_SYMBOLS now: contract size, volume min/max/step, stops level, currencies (sizing by risk reads these). */
  async symbolTerms(symbol: string): Promise<SymbolTerms> {
    return (await this.http.send(executionCalls.symbolTerms, { params: { symbol } })).data;
  }

  /** The terminal's account now: currency, balance, equity, margin, free margin, leverage. */
  async account(): Promise<TerminalAccountAnswer> {
    return (await this.http.send(executionCalls.account, {})).data;
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private async act<S extends z.ZodType>(
    call: ServiceCall<S>,
    idempotencyKey: string,
    parts: { params?: Record<string, string>; body?: unknown },
  ): Promise<ActionOutcome<z.output<S>>> {
    const res = await this.http.send(call, { ...parts, headers: { 'idempotency-key': idempotencyKey } });
    return { result: res.data, replayed: res.headers['idempotent-replayed'] === 'true' };
  }
}
