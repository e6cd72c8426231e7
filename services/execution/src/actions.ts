import { outcomeOfRetcode, retcodeName, type TerminalPosition, type TradeResult, type TradingTerminal } from '@fxdesk/broker';
import { AppError, envelope } from '@fxdesk/core';
import { compareDecimal, decimalPlaces, type Clock } from '@fxdesk/primitives';
import type { ClosePositionBody, ClosePositionsAnswer, ClosePositionsBody, ModifyPositionBody } from '@fxdesk/schemas';
import type { Logger } from 'pino';
import type { ActionKind, ActionOutcome, ActionPosition, ActionRecord, ActionResult, ActionState, ActionStore, ExistingAction } from './action-store.js';
import type { BookReads } from './book.js';
import { actionHash } from './canonical.js';
import type { ExecutionConfig } from './config.js';
import { messageOf, preSendCall, withDeadline } from './deadline.js';
import { errors } from './errors.js';
import { orderComment } from './order-comment.js';
import { claimLeaseMs, type Answer } from './pipeline.js';
import { checkStopLevels, checkVolume, quotePrices, type StopLeg } from './trade-request.js';

export interface ActionsDeps {
  config: ExecutionConfig;
  terminal: TradingTerminal;
  store: ActionStore;
  book: BookReads;
  clock: Clock;
  logger: Logger;
  /** Whether the service may trade now (the signals' readiness): a new action is not claimed while it may not. */
  readiness: () => { ok: boolean; detail: string };
}

/** POST /v1/positions/{ticket}/close: the whole position when `volume` is absent. */
export type CloseBody = ClosePositionBody;
/** PATCH /v1/positions/{ticket}: a leg left out stays as it is, null removes it. */
export type ModifyBody = ModifyPositionBody;
/** POST /v1/positions/close-all: every open position, or those of one symbol and/or one source. */
export type FlattenBody = ClosePositionsBody;

/** One position of a flatten: its own record, keyed by the Idempotency-Key and the ticket, under the flatten's hash. */
interface FlattenItem {
  actionId: string;
  hash: string;
}

/** What a flatten answers for each position it covers. */
export type FlattenOutcome = ClosePositionsAnswer['positions'][number];

/** The record id of a flatten's position: the key and the ticket (a ticket is digits, so no two pairs meet). */
export function flattenActionId(idempotencyKey: string, ticket: string): string {
  return `${idempotencyKey}#${ticket}`;
}

/** Who asked, under which key. */
export interface ActionCall {
  idempotencyKey: string;
  requestId: string;
}

type Failure = NonNullable<ActionOutcome['error']>;
type Fields = { state: ActionOutcome['state']; result: ActionResult | null; error: Failure | null; body?: string };

/** A refusal decided after the claim: stored `rejected` and replayed. */
class Rejection extends Error {
  constructor(readonly error: AppError) {
    super(error.message);
  }
}

const UNKNOWN_ADVICE = 'the action may or may not have been executed at the broker; it will not be retried; a human must inspect the terminal';

/** The message stored for an action that was cut off by a crash or a restart. */
export const INTERRUPTED_ACTION_MESSAGE = `the service stopped while this action was being executed; ${UNKNOWN_ADVICE}`;

function resultOf(sent: TradeResult): ActionResult {
  return {
    retcode: sent.retcode,
    retcode_name: retcodeName(sent.retcode),
    order: sent.order,
    deal: sent.deal,
    volume: sent.volume,
    price: sent.price,
    broker_comment: sent.comment,
  };
}

/**
 * The cursor of GET /v1/actions: the last row of a page, `received_at` and `action_id` joined by a
 * newline, in base64url. Every base64url string names a position (one the service did not issue
 * only starts a page at an arbitrary place), so the query schema's pattern is the whole rule.
 */
export function encodeActionCursor(position: ActionPosition): string {
  return Buffer.from(`${position.receivedAt}\n${position.actionId}`).toString('base64url');
}

export function decodeActionCursor(cursor: string): ActionPosition {
  const text = Buffer.from(cursor, 'base64url').toString();
  const cut = text.indexOf('\n');
  return cut < 0 ? { receivedAt: text, actionId: '' } : { receivedAt: text.slice(0, cut), actionId: text.slice(cut + 1) };
}

/** A recorded position of a flatten as its answer lists it. */
function outcomeOf(ticket: string, existing: ExistingAction): FlattenOutcome {
  return {
    ticket,
    state: existing.state,
    http_status: existing.httpStatus,
    answer: existing.responseBody === null ? null : (JSON.parse(existing.responseBody) as unknown),
  };
}

/** The state of a position's close from its answer's status. */
function stateOfStatus(status: number): ActionState {
  if (status === 200) return 'done';
  if (status === 422) return 'rejected';
  if (status === 409) return 'processing';
  return 'unknown';
}

/**
 * The actions on what the desk holds (issue 23): close all or part of a position, move its
 * stops, cancel a resting order. Each is a money path kept like a signal: idempotent by its
 * Idempotency-Key, claimed in the store before the terminal is called, the venue's answer
 * stored and replayed byte for byte, an ambiguous one stored `unknown` (503) and never resent.
 */
export class PositionActions {
  private readonly leaseMs: number;
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly deps: ActionsDeps) {
    this.leaseMs = claimLeaseMs(deps.config);
  }

  close(ticket: string, body: CloseBody, call: ActionCall): Promise<Answer> {
    return this.track(() =>
      this.run('close', ticket, body, call, async (comment) => {
        const position = await this.position(ticket);
        const volume = body.volume ?? position.volume;
        if (body.volume !== undefined) await this.checkCloseVolume(body.volume, position);
        const { terminal, config } = this.deps;
        return () => terminal.closePosition({ position: ticket, volume, deviation: config.MAX_DEVIATION_POINTS, magic: config.MAGIC_NUMBER, comment });
      }),
    );
  }

  modify(ticket: string, body: ModifyBody, call: ActionCall): Promise<Answer> {
    return this.track(() =>
      this.run('modify', ticket, body, call, async () => {
        const position = await this.position(ticket);
        await this.checkStops(position, body);
        const sl = body.sl === undefined ? position.sl : body.sl;
        const tp = body.tp === undefined ? position.tp : body.tp;
        return () => this.deps.terminal.modifyPosition({ position: ticket, sl, tp });
      }),
    );
  }

  /**
   * Closes every position of the filter, one record per position: a retry with the same key
   * (after a crash in the middle, say) answers the positions already recorded from their records
   * and closes only those not yet claimed, so nothing is closed twice. 200 with each position's
   * outcome; `Idempotent-Replayed` when nothing new was claimed.
   */
  closeAll(body: FlattenBody, call: ActionCall): Promise<Answer> {
    return this.track(async () => {
      const { store, book, logger, clock } = this.deps;
      const hash = actionHash('close_all', '', body);
      const key = call.idempotencyKey;
      let records = await this.storeCall(key, 'read the stored actions', () => store.byKey(key));
      let plan = records.find((r) => r.actionId === key);
      if (plan && plan.payloadHash !== hash) throw errors.create('idempotency_conflict', `Idempotency-Key ${key} was already used for a different request`);
      const replayed = plan !== undefined;
      if (!plan) {
        const ready = this.deps.readiness();
        if (!ready.ok) throw new AppError('not_ready', `not ready to trade: ${ready.detail}`, { headers: { 'retry-after': '5' } });
        const tickets = (await book.terminalPositions(body, logger)).map((p) => p.ticket);
        const now = clock.now();
        // The plan: which positions this flatten covers, fixed once, so a retry never closes one opened since.
        await this.storeCall(key, 'store the idempotency claim', () =>
          store.claim({
            actionId: key,
            idempotencyKey: key,
            kind: 'close_all',
            ticket: '',
            payloadHash: hash,
            requestJson: JSON.stringify({ ...body, tickets }),
            requestId: call.requestId,
            orderComment: '',
            receivedAt: new Date(now).toISOString(),
            leaseExpiresAt: new Date(now + this.leaseMs).toISOString(),
          }),
        );
        records = await this.storeCall(key, 'read the stored actions', () => store.byKey(key));
        plan = records.find((r) => r.actionId === key);
        if (!plan || plan.payloadHash !== hash) throw errors.create('idempotency_conflict', `Idempotency-Key ${key} was already used for a different request`);
      }
      const tickets = (JSON.parse(plan.requestJson) as { tickets: string[] }).tickets;
      const outcomes: FlattenOutcome[] = [];
      for (const ticket of tickets) {
        const recorded = records.find((r) => r.actionId === flattenActionId(key, ticket));
        if (recorded) {
          outcomes.push(outcomeOf(ticket, recorded));
          continue;
        }
        const answer = await this.closeItem(ticket, body, call, { actionId: flattenActionId(key, ticket), hash });
        outcomes.push({ ticket, state: stateOfStatus(answer.status), http_status: answer.status, answer: JSON.parse(answer.body) as unknown });
      }
      const response = JSON.stringify({ idempotency_key: key, positions: outcomes });
      if (plan.state === 'processing' && outcomes.every((o) => o.state !== 'processing')) {
        const completedAt = new Date(clock.now()).toISOString();
        await store
          .complete(key, { state: 'done', httpStatus: 200, responseBody: response, result: null, error: null, completedAt })
          .catch((err: unknown) => logger.warn({ err, key }, 'could not mark a flatten done (a retry answers it from its positions)'));
      }
      return { status: 200, body: response, replayed: replayed && outcomes.every((o) => records.some((r) => r.ticket === o.ticket)) };
    });
  }

  /** One position of a flatten, closed whole under its own record; a refusal to claim or read is listed with its error (a retry takes it up). */
  private closeItem(ticket: string, body: FlattenBody, call: ActionCall, item: FlattenItem): Promise<Answer> {
    return this.run(
      'close',
      ticket,
      body,
      call,
      async (comment) => {
        const position = await this.position(ticket);
        const { terminal, config } = this.deps;
        return () =>
          terminal.closePosition({ position: ticket, volume: position.volume, deviation: config.MAX_DEVIATION_POINTS, magic: config.MAGIC_NUMBER, comment });
      },
      item,
    ).catch((err: unknown) => {
      if (!(err instanceof AppError)) throw err;
      const failure = envelope(err.code, err.message, { requestId: call.requestId, now: new Date(this.deps.clock.now()) });
      return { status: err.statusCode, body: JSON.stringify(failure), replayed: false };
    });
  }

  cancel(ticket: string, call: ActionCall): Promise<Answer> {
    return this.track(() => this.run('cancel', ticket, {}, call, async () => () => this.deps.terminal.cancelOrder({ order: ticket })));
  }

  /** GET /v1/actions: one page of stored actions, newest received first. */
  async list({ limit, cursor, ticket }: { limit: number; cursor?: string; ticket?: string }): Promise<{ actions: ActionRecord[]; next_cursor: string | null }> {
    const page = await this.deps.store.list(cursor === undefined ? undefined : decodeActionCursor(cursor), limit, ticket);
    return { actions: page.records, next_cursor: page.next ? encodeActionCursor(page.next) : null };
  }

  /** Settles when no action is being executed (shutdown waits for this before closing the store). */
  whenIdle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async track(work: () => Promise<Answer>): Promise<Answer> {
    this.inFlight += 1;
    try {
      return await work();
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  /**
   * Stored record → readiness → claim → `prepare` (reads and rules; a refusal is stored, a
   * failed read releases the claim) → the one terminal call → its outcome, stored, then answered.
   */
  private async run(
    kind: ActionKind,
    ticket: string,
    body: object,
    { idempotencyKey, requestId }: ActionCall,
    prepare: (comment: string) => Promise<() => Promise<TradeResult>>,
    item?: FlattenItem,
  ): Promise<Answer> {
    const { store, clock } = this.deps;
    const actionId = item?.actionId ?? idempotencyKey;
    const hash = item?.hash ?? actionHash(kind, ticket, body as Record<string, unknown>);
    const ready = this.deps.readiness();
    if (!ready.ok) {
      const existing = await this.storeCall(actionId, 'read the stored action', () => store.existing(actionId));
      if (existing) return this.answerExisting(actionId, hash, existing);
      throw new AppError('not_ready', `not ready to trade: ${ready.detail}`, { headers: { 'retry-after': '5' } });
    }
    const comment = orderComment(kind, actionId);
    const now = clock.now();
    const claim = await this.storeCall(actionId, 'store the idempotency claim', () =>
      store.claim({
        actionId,
        idempotencyKey,
        kind,
        ticket,
        payloadHash: hash,
        requestJson: JSON.stringify(body),
        requestId,
        orderComment: comment,
        receivedAt: new Date(now).toISOString(),
        leaseExpiresAt: new Date(now + this.leaseMs).toISOString(),
      }),
    );
    if (!claim.claimed) return this.answerExisting(actionId, hash, claim.existing);

    let send: () => Promise<TradeResult>;
    try {
      send = await prepare(comment);
    } catch (err) {
      if (err instanceof Rejection) return this.finish(actionId, kind, ticket, requestId, this.rejected(err.error));
      await store.release(actionId).catch((releaseError: unknown) => {
        this.deps.logger.error({ err: releaseError, actionId }, 'could not release the claim of an action that was not sent');
      });
      throw err;
    }
    let sent: TradeResult;
    try {
      const { config } = this.deps;
      sent = await withDeadline(send, { clock, timeoutMs: config.ORDER_SEND_TIMEOUT_MS, setting: 'ORDER_SEND_TIMEOUT_MS' });
    } catch (err) {
      this.deps.logger.error({ actionId, requestId, err }, `${kind} gave no result: outcome unknown`);
      return this.finish(actionId, kind, ticket, requestId, this.unknown(`${kind} gave no result (${messageOf(err)})`, null));
    }
    return this.finish(actionId, kind, ticket, requestId, this.judge(kind, sent));
  }

  /** The venue's retcode as a stored outcome: done, a refusal with a code that says what is wrong, or unknown. */
  private judge(kind: ActionKind, sent: TradeResult): Fields {
    const result = resultOf(sent);
    const verdict = outcomeOfRetcode(sent.retcode);
    if (verdict === 'filled' || verdict === 'partially_filled' || verdict === 'placed') return { state: 'done', result, error: null };
    const name = `${result.retcode_name} (${sent.retcode})`;
    if (verdict === 'unknown') return this.unknown(`${kind} answered ${name}`, result);
    const code =
      sent.retcode === 10036
        ? 'position_not_found'
        : kind === 'cancel' && sent.retcode === 10013
          ? 'order_not_found'
          : sent.retcode === 10025
            ? 'no_changes'
            : 'broker_rejected';
    return { ...this.rejected(errors.create(code, `the broker refused the ${kind}: ${name} ${sent.comment}`.trim())), result };
  }

  private rejected(error: AppError): Fields {
    const failure: Failure = { code: error.code, message: error.message };
    if (error.details) failure.details = error.details;
    return { state: 'rejected', result: null, error: failure };
  }

  private unknown(what: string, result: ActionResult | null): Fields {
    return { state: 'unknown', result, error: { code: 'execution_outcome_unknown', message: `${what}; ${UNKNOWN_ADVICE}` } };
  }

  private answerExisting(actionId: string, hash: string, existing: ExistingAction): Answer {
    if (existing.payloadHash !== hash) throw errors.create('idempotency_conflict', `Idempotency-Key ${actionId} was already used for a different request`);
    if (existing.state === 'processing' || existing.httpStatus === null || existing.responseBody === null) {
      throw errors.create('action_in_progress', `the action under Idempotency-Key ${actionId} is still being executed`, { headers: { 'retry-after': '1' } });
    }
    return { status: existing.httpStatus, body: existing.responseBody, replayed: true };
  }

  private async finish(actionId: string, kind: ActionKind, ticket: string, requestId: string, fields: Fields): Promise<Answer> {
    const completedAt = new Date(this.deps.clock.now()).toISOString();
    let status = 200;
    let body = JSON.stringify({ action_id: actionId, kind, ticket, state: fields.state, result: fields.result });
    if (fields.error) {
      status = errors.statusByCode[fields.error.code as keyof typeof errors.statusByCode];
      body = JSON.stringify(
        envelope(fields.error.code, fields.error.message, { requestId, details: fields.error.details as never, now: new Date(completedAt) }),
      );
    }
    const outcome: ActionOutcome = { state: fields.state, httpStatus: status, responseBody: body, result: fields.result, error: fields.error, completedAt };
    try {
      await this.deps.store.complete(actionId, outcome);
    } catch (first) {
      try {
        await this.deps.store.complete(actionId, outcome);
      } catch (err) {
        // The row stays `processing` and becomes `unknown` at the next start; the outcome goes to the log.
        this.deps.logger.fatal({ err, first, actionId, requestId, outcome }, 'could not store the outcome of an action');
      }
    }
    return { status, body, replayed: false };
  }

  private async storeCall<T>(actionId: string, what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      this.deps.logger.error({ err, actionId }, `could not ${what}`);
      throw errors.create('storage_unavailable', `could not ${what}; nothing was sent; retry later`, { headers: { 'retry-after': '5' } });
    }
  }

  /** The open position of the ticket, or a stored refusal when the terminal holds none. */
  private async position(ticket: string): Promise<TerminalPosition> {
    const positions = await this.deps.book.terminalPositions({}, this.deps.logger);
    const position = positions.find((p) => p.ticket === ticket);
    if (!position) throw new Rejection(errors.create('position_not_found', `the terminal holds no open position ${ticket}`));
    return position;
  }

  private async symbolInfo(symbol: string) {
    const info = await this.terminalCall('symbol_info', () => this.deps.terminal.symbolInfo(symbol));
    if (!info) throw errors.create('broker_unavailable', `the terminal does not list ${symbol}`, { headers: { 'retry-after': '5' } });
    return info;
  }

  /** On the symbol's step and within its min and max, as a signal's volume, and at most the open volume. */
  private async checkCloseVolume(volume: string, position: TerminalPosition): Promise<void> {
    const info = await this.symbolInfo(position.symbol);
    try {
      checkVolume(volume, info, info.volumeMax);
    } catch (err) {
      if (err instanceof AppError) throw new Rejection(err);
      throw err;
    }
    if (compareDecimal(volume, position.volume) > 0) {
      const message = `is above the position's open volume ${position.volume}`;
      throw new Rejection(errors.create('invalid_volume', `volume ${volume} ${message}`, { details: [{ path: 'body.volume', message }] }));
    }
  }

  /** The legs the body sets: at most the symbol's digits, then on their side of the close price and outside the stops level. */
  private async checkStops(position: TerminalPosition, body: ModifyBody): Promise<void> {
    const info = await this.symbolInfo(position.symbol);
    const legs: StopLeg[] = [];
    for (const [field, leg] of [
      ['sl', 'stop_loss'],
      ['tp', 'take_profit'],
    ] as const) {
      const price = body[field];
      if (price === undefined || price === null) continue;
      if (decimalPlaces(price) > info.digits) {
        const message = `has more than the ${info.digits} decimal places of ${info.symbol}`;
        throw new Rejection(errors.create('invalid_price', `${field}: ${message}`, { details: [{ path: `body.${field}`, message }] }));
      }
      legs.push({ leg, price, path: `body.${field}` });
    }
    if (legs.length === 0) return;
    const quote = await this.terminalCall('tick', () => this.deps.terminal.tick(position.symbol));
    if (!quote) throw errors.create('broker_unavailable', `no live quote for ${position.symbol} yet`, { headers: { 'retry-after': '1' } });
    const prices = quotePrices(quote, info);
    const isBuy = position.side === 'buy';
    try {
      checkStopLevels(isBuy, isBuy ? prices.bid : prices.ask, legs, info);
    } catch (err) {
      if (err instanceof AppError) throw new Rejection(err);
      throw err;
    }
  }

  /** A terminal call that cannot trade, bounded by PRE_SEND_TIMEOUT_MS: a failure is a retryable 503 and the claim is released. */
  private terminalCall<T>(name: string, call: () => Promise<T>): Promise<T> {
    const { clock, config, logger } = this.deps;
    return preSendCall(name, call, { clock, timeoutMs: config.PRE_SEND_TIMEOUT_MS, logger, before: 'an action' });
  }
}
