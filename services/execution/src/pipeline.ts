import { retcodeName, type TradingTerminal, type TradeRequest, type TradeResult } from '@fxdesk/broker';
import { AppError, envelope, type HealthCheck, type MetricsRegistry } from '@fxdesk/core';
import type { Clock } from '@fxdesk/primitives';
import type { BrokerTickets, SignalFailure, SignalList, SignalListQuery, SignalRecord, SignalSubmission, TradeOutcome } from '@fxdesk/schemas';
import type { Logger } from 'pino';
import { payloadHash } from './canonical.js';
import type { ExecutionConfig } from './config.js';
import { messageOf, preSendCall, withDeadline } from './deadline.js';
import { errors } from './errors.js';
import { checkFreshness } from './freshness.js';
import { orderComment } from './order-comment.js';
import { listSignals } from './signal-list.js';
import { judgeSendResult, NO_TICKETS, normalizeCheckResult, normalizeSendResult, ticketsOf } from './outcome.js';
import type { ExistingSignal, SignalOutcome, SignalStore } from './store.js';
import { buildTradeRequest } from './trade-request.js';

/** The exact HTTP answer to a submission; `replayed` when it is a stored one. */
export interface Answer {
  status: number;
  body: string;
  replayed: boolean;
}

export interface PipelineDeps {
  config: ExecutionConfig;
  terminal: TradingTerminal;
  store: SignalStore;
  clock: Clock;
  logger: Logger;
  metrics: MetricsRegistry;
}

/** A rejection decided after the claim, with the terminal's answer when there was one. */
class Rejection extends Error {
  constructor(
    readonly error: AppError,
    readonly result: TradeOutcome | null = null,
    readonly tickets: BrokerTickets = NO_TICKETS,
  ) {
    super(error.message);
  }
}

const UNKNOWN_ADVICE = 'the order may or may not exist at the broker; it will not be retried; a human must inspect the terminal';

/** The message stored for a signal that was cut off by a crash or a restart. */
export const INTERRUPTED_MESSAGE = `the service stopped while this signal was being executed; ${UNKNOWN_ADVICE}`;

/**
 * The longest a live replica holds a claim before its outcome is stored: three bounded terminal
 * calls before order_send (symbol_info, tick, order_check), order_send, and 5 s for the store.
 * A claim's lease lasts this long, and shutdown waits this long for signals in flight.
 */
export function claimLeaseMs(config: Pick<ExecutionConfig, 'PRE_SEND_TIMEOUT_MS' | 'ORDER_SEND_TIMEOUT_MS'>): number {
  return 3 * config.PRE_SEND_TIMEOUT_MS + config.ORDER_SEND_TIMEOUT_MS + 5_000;
}

/** A final state with its details; the answer is built from it. */
type OutcomeFields = Omit<SignalOutcome, 'httpStatus' | 'responseBody' | 'completedAt'>;

interface Judged {
  outcome: OutcomeFields;
  /** The 200 body, for the three success states. */
  successBody?: string;
}

function unknownOutcome(what: string, tickets: BrokerTickets = NO_TICKETS, result: TradeOutcome | null = null): OutcomeFields {
  return { state: 'unknown', tickets, result, error: { code: 'execution_outcome_unknown', message: `${what}; ${UNKNOWN_ADVICE}` } };
}

/**
 * POST /v1/signals, DESIGN.md §4: stored record → allowed source and symbol → readiness →
 * idempotency claim → freshness → symbol rules → order_check → order_send → state. A signal
 * already stored is answered from its record whatever the service's state. Before the claim a
 * failure is thrown and nothing is stored; after it, every outcome is stored with its exact
 * answer and replayed on an identical retry.
 */
export class SignalPipeline {
  private readonly sources: Set<string>;
  private readonly symbols: Set<string>;
  private readonly outcomes;
  private readonly replays;
  private readonly leaseMs: number;
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly deps: PipelineDeps) {
    this.sources = new Set(deps.config.ALLOWED_SIGNAL_SOURCES);
    this.symbols = new Set(deps.config.ALLOWED_SYMBOLS);
    this.outcomes = deps.metrics.counter('execution_signal_outcomes_total', 'Signals that reached a final state, by state.');
    this.replays = deps.metrics.counter('execution_signal_replays_total', 'Identical retries answered with the stored answer.');
    this.leaseMs = claimLeaseMs(deps.config);
  }

  /** The checks of /health/ready: the terminal is connected, TRADING_ENABLED is true, the store's database answers. */
  readinessChecks(): Record<string, HealthCheck> {
    const { config, terminal, store } = this.deps;
    return {
      terminal: () => {
        const connected = terminal.isConnected();
        return { ok: connected, detail: `${terminal.name} terminal ${connected ? 'connected' : 'disconnected'}` };
      },
      trading_enabled: () => ({ ok: config.TRADING_ENABLED, detail: `TRADING_ENABLED=${config.TRADING_ENABLED}` }),
      store: () => store.health(),
    };
  }

  /** Whether signals can be executed now (and why not). */
  readiness(): { ok: boolean; detail: string } {
    if (!this.deps.config.TRADING_ENABLED) return { ok: false, detail: 'TRADING_ENABLED=false' };
    if (!this.deps.terminal.isConnected()) return { ok: false, detail: `the ${this.deps.terminal.name} terminal is disconnected` };
    const store = this.deps.store.writable?.();
    if (store && !store.ok) return { ok: false, detail: store.detail };
    return { ok: true, detail: 'terminal connected, trading enabled' };
  }

  /** Why a new signal may not be claimed now (source or symbol not allowed, not ready), if it may not. */
  private refusal({ source, symbol }: SignalSubmission): AppError | undefined {
    if (!this.sources.has(source)) {
      return errors.create('source_not_allowed', `source "${source}" is not in ALLOWED_SIGNAL_SOURCES`, {
        details: [{ path: 'body.source', message: 'not in ALLOWED_SIGNAL_SOURCES' }],
      });
    }
    if (!this.symbols.has(symbol)) {
      return errors.create('symbol_not_allowed', `symbol "${symbol}" is not in ALLOWED_SYMBOLS (exact, case-sensitive)`, {
        details: [{ path: 'body.symbol', message: 'not in ALLOWED_SYMBOLS' }],
      });
    }
    const ready = this.readiness();
    if (!ready.ok) return new AppError('not_ready', `not ready to trade: ${ready.detail}`, { headers: { 'retry-after': '5' } });
    return undefined;
  }

  async submit(signal: SignalSubmission, received: unknown, requestId: string): Promise<Answer> {
    this.inFlight += 1;
    try {
      return await this.run(signal, received, requestId);
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  /** GET /v1/signals/{signal_id}: the stored record, whatever its state. */
  async record(signalId: string): Promise<SignalRecord> {
    const id = signalId.toLowerCase();
    const record = await this.deps.store.find(id);
    if (!record) throw errors.create('signal_not_found', `no signal ${id}`);
    return record;
  }

  /** GET /v1/signals: one page of stored records, newest received first. */
  list(query: SignalListQuery): Promise<SignalList> {
    return listSignals(this.deps.store, query);
  }

  /** Settles when no submission is being processed (shutdown waits for this before closing the store). */
  whenIdle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async run(signal: SignalSubmission, received: unknown, requestId: string): Promise<Answer> {
    const signalId = signal.signal_id.toLowerCase();
    const hash = payloadHash(signal);
    // The allow-lists and readiness gate a new claim only: a stored signal is answered from its
    // record whatever they say now. Looked up only when they refuse: the claim finds the record too.
    const refusal = this.refusal(signal);
    if (refusal) {
      const existing = await this.storeCall(signalId, 'read the stored signal', () => this.deps.store.existing(signalId));
      if (existing) return this.answerExisting(signalId, hash, existing);
      throw refusal;
    }

    const comment = orderComment(signal.source, signalId);
    const now = this.deps.clock.now();
    const claim = await this.storeCall(signalId, 'store the idempotency claim', () =>
      this.deps.store.claim({
        signalId,
        payloadHash: hash,
        requestJson: JSON.stringify(received),
        requestId,
        orderComment: comment,
        symbol: signal.symbol,
        source: signal.source,
        receivedAt: new Date(now).toISOString(),
        leaseExpiresAt: new Date(now + this.leaseMs).toISOString(),
      }),
    );
    if (!claim.claimed) return this.answerExisting(signalId, hash, claim.existing);
    return this.execute(signal, signalId, comment, requestId);
  }

  /** A store call before anything was sent: a failure is a retryable 503 storage_unavailable. */
  private async storeCall<T>(signalId: string, what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      this.deps.logger.error({ err, signalId }, `could not ${what}`);
      throw errors.create('storage_unavailable', `could not ${what}; nothing was sent; retry later`, { headers: { 'retry-after': '5' } });
    }
  }

  private answerExisting(signalId: string, hash: string, existing: ExistingSignal): Answer {
    if (existing.payloadHash !== hash) {
      throw errors.create('idempotency_conflict', `signal ${signalId} was already submitted with a different payload`);
    }
    if (existing.state === 'processing' || existing.httpStatus === null || existing.responseBody === null) {
      throw errors.create('signal_in_progress', `signal ${signalId} is still being processed`, { headers: { 'retry-after': '1' } });
    }
    this.replays.inc();
    return { status: existing.httpStatus, body: existing.responseBody, replayed: true };
  }

  private async execute(signal: SignalSubmission, signalId: string, comment: string, requestId: string): Promise<Answer> {
    let request: TradeRequest;
    try {
      request = await this.prepare(signal, comment);
      if (!this.deps.terminal.isConnected()) {
        throw errors.create('broker_unavailable', `the ${this.deps.terminal.name} terminal disconnected before order_send`, {
          headers: { 'retry-after': '5' },
        });
      }
    } catch (err) {
      if (err instanceof Rejection) return this.finish(signalId, requestId, this.rejectedOutcome(err));
      // Nothing was sent: give the signal_id back so an identical retry can run. If even that
      // fails, the claim stays and becomes `unknown` at the next start: never sent, never lost.
      await this.deps.store.release(signalId).catch((releaseError: unknown) => {
        this.deps.logger.error({ err: releaseError, signalId }, 'could not release the claim of a signal that was not sent');
      });
      throw err;
    }

    let sent: TradeResult;
    try {
      sent = await this.send(signalId, requestId, request);
    } catch (err) {
      this.deps.logger.error({ signalId, requestId, err }, 'order_send gave no result: outcome unknown');
      return this.finish(signalId, requestId, unknownOutcome(`order_send gave no result (${messageOf(err)})`));
    }
    let judged: Judged;
    try {
      judged = this.judge(signalId, request, sent);
    } catch (err) {
      this.deps.logger.error({ signalId, requestId, err, result: sent }, 'could not read the order_send answer: outcome unknown');
      judged = { outcome: unknownOutcome(`order_send answered but the answer could not be read (${messageOf(err)})`) };
    }
    return this.finish(signalId, requestId, judged.outcome, judged.successBody);
  }

  private judge(signalId: string, request: TradeRequest, sent: TradeResult): Judged {
    const verdict = judgeSendResult(signalId, request, sent);
    if (verdict.succeeded) {
      const { state, tickets, result } = verdict.body;
      return { outcome: { state, tickets, result, error: null }, successBody: JSON.stringify(verdict.body) };
    }
    const name = `${verdict.result.retcode_name} (${verdict.result.retcode})`;
    if (verdict.state === 'rejected') {
      const error = errors.create('broker_rejected', `the broker rejected the order: ${name} ${sent.comment}`.trim());
      return { outcome: this.rejectedOutcome(new Rejection(error, verdict.result, verdict.tickets)) };
    }
    return { outcome: unknownOutcome(`order_send answered ${name}`, verdict.tickets, verdict.result) };
  }

  /**
   * Freshness, symbol rules and order_check. Throws a Rejection for an outcome to store, or an
   * AppError (503) when a terminal call that cannot have traded failed.
   */
  private async prepare(signal: SignalSubmission, comment: string): Promise<TradeRequest> {
    const { config, terminal } = this.deps;
    try {
      checkFreshness(signal, this.deps.clock.now(), {
        maxAgeSeconds: config.SIGNAL_MAX_AGE_SECONDS,
        futureToleranceSeconds: config.SIGNAL_FUTURE_TOLERANCE_SECONDS,
      });
      const info = await this.terminalCall('symbol_info', () => terminal.symbolInfo(signal.symbol));
      if (!info) throw errors.create('symbol_not_allowed', `the ${terminal.name} terminal does not list ${signal.symbol}`);
      const quote = await this.terminalCall('tick', () => terminal.tick(signal.symbol));
      if (!quote) throw errors.create('broker_unavailable', `no live quote for ${signal.symbol} yet`, { headers: { 'retry-after': '1' } });
      const request = buildTradeRequest(
        signal,
        info,
        quote,
        { maximumVolume: config.MAXIMUM_VOLUME, maxDeviationPoints: config.MAX_DEVIATION_POINTS, magic: config.MAGIC_NUMBER },
        comment,
      );
      const check = await this.terminalCall('order_check', () => terminal.orderCheck(request));
      if (check.retcode !== 0) {
        const name = `${retcodeName(check.retcode)} (${check.retcode})`;
        throw new Rejection(
          errors.create('preflight_rejected', `the broker pre-check refused the order: ${name} ${check.comment}`.trim()),
          normalizeCheckResult(request, check),
        );
      }
      return request;
    } catch (err) {
      if (err instanceof AppError && err.statusCode === 422) throw new Rejection(err);
      throw err;
    }
  }

  /**
   * A terminal call that cannot trade, bounded by PRE_SEND_TIMEOUT_MS: any failure is a retryable
   * 503 and nothing is stored. A late answer is dropped, so it can never lead to an order_send.
   */
  private terminalCall<T>(name: string, call: () => Promise<T>): Promise<T> {
    const { clock, config, logger } = this.deps;
    return preSendCall(name, call, { clock, timeoutMs: config.PRE_SEND_TIMEOUT_MS, logger, before: 'order_send' });
  }

  /**
   * order_send, at most once per signal. Any exception or silence past ORDER_SEND_TIMEOUT_MS is
   * no result at all (the caller stores `unknown`); an answer that arrives after that is kept
   * on the record for the human who inspects it, without changing the state.
   */
  private send(signalId: string, requestId: string, request: TradeRequest): Promise<TradeResult> {
    const { terminal, clock, config } = this.deps;
    return withDeadline(
      () => terminal.orderSend(request),
      { clock, timeoutMs: config.ORDER_SEND_TIMEOUT_MS, setting: 'ORDER_SEND_TIMEOUT_MS' },
      (late) => this.keepLateResult(signalId, requestId, request, late),
    );
  }

  private keepLateResult(signalId: string, requestId: string, request: TradeRequest, result: TradeResult): void {
    const outcome = normalizeSendResult(request, result, judgeSendResult(signalId, request, result).state);
    this.deps.logger.error({ signalId, requestId, result }, 'order_send answered after its timeout; the signal stays unknown');
    this.deps.store.recordLateResult(signalId, ticketsOf(result), outcome, this.nowIso()).catch((err: unknown) => {
      this.deps.logger.fatal({ err, signalId, result }, 'could not store the late order_send result');
    });
  }

  private rejectedOutcome(rejection: Rejection): OutcomeFields {
    const { error } = rejection;
    const failure: SignalFailure = { code: error.code, message: error.message };
    if (error.details) failure.details = error.details;
    return { state: 'rejected', tickets: rejection.tickets, result: rejection.result, error: failure };
  }

  /** Stores the final state with its exact answer, then answers; only after the commit. */
  private async finish(signalId: string, requestId: string, outcome: OutcomeFields, successBody?: string): Promise<Answer> {
    const completedAt = this.nowIso();
    let status = 200;
    let body = successBody ?? '';
    if (outcome.error) {
      status = errors.statusByCode[outcome.error.code as keyof typeof errors.statusByCode];
      body = JSON.stringify(envelope(outcome.error.code, outcome.error.message, { requestId, details: outcome.error.details, now: new Date(completedAt) }));
    }
    // Field by field: on Node 20, `{ ...outcome, httpStatus, … }` gives every outcome a hidden class of its own.
    const { state, tickets, result, error } = outcome;
    const stored: SignalOutcome = { state, tickets, result, error, httpStatus: status, responseBody: body, completedAt };
    try {
      await this.deps.store.complete(signalId, stored);
    } catch (first) {
      try {
        await this.deps.store.complete(signalId, stored);
      } catch (err) {
        // The trade happened (or not) and the caller must hear it; the row stays `processing`
        // and becomes `unknown` at the next start. The whole outcome goes to the log.
        this.deps.logger.fatal({ err, first, signalId, requestId, outcome: stored }, 'could not store the outcome of a signal');
      }
    }
    this.outcomes.inc({ state: outcome.state });
    return { status, body, replayed: false };
  }

  private nowIso(): string {
    return new Date(this.deps.clock.now()).toISOString();
  }
}
