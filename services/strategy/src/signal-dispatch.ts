import { ServiceError, type ExecutionClient, type NotificationChannel, type NotificationClient } from '@fxdesk/client';
import { backoffDelayMs, decimalFromNumber, type Backoff, type Clock, type TimerHandle } from '@fxdesk/primitives';
import type { SignalExecution, SignalNotification, SignalSubmissionInput, StrategySignal } from '@fxdesk/schemas';
import type { Logger } from 'pino';
import type { DownstreamHealth } from './downstream.js';
import type { EventHub } from './event-hub.js';
import type { SignalStore } from './store/index.js';

export interface DispatchOptions {
  signals: SignalStore;
  clock: Clock;
  logger: Logger;
  health: DownstreamHealth;
  /** Told each time a signal's order or announcement moves (the store logged its event). */
  events: Pick<EventHub, 'deskChanged'>;
  execution?: ExecutionClient;
  notification?: NotificationClient;
  /** Further attempts after a failure that may pass on a retry. */
  retries: number;
  /** Lots of an order whose signal decided none (TRADE_VOLUME): a record of before the sizing. */
  volume: string;
  /** Told each order's final answer (the desk's risk: an order that opened nothing leaves its book). */
  onSubmitted?: (signal: StrategySignal, execution: SignalExecution) => void;
  /** The source slug the execution and notification services know the strategy by. */
  source: string;
  channels: NotificationChannel[];
}

/** Execution answers that are final: the signal was refused or its outcome is settled. */
const FINAL_UNKNOWN = new Set(['execution_outcome_unknown']);
/** The waits before each retry of a downstream call: 1 s, 2 s, 4 s… */
const RETRY_BACKOFF: Backoff = { baseMs: 1000 };

/** Why a failed call is worth repeating (the same call is always safe to repeat: the ids are idempotent). */
export function isRetryable(err: unknown): boolean {
  if (!(err instanceof ServiceError)) return false;
  if (err.status === 503 && FINAL_UNKNOWN.has(err.code)) return false;
  if (err.status === 409 && err.code === 'signal_in_progress') return true;
  return err.isRetryable || (err.kind === 'http' && err.status !== undefined && err.status >= 500);
}

/** Statuses that say the call never reached the service's logic: a wrong key or URL, or throttling. */
const NOT_ANSWERED = new Set([401, 404, 429]);

/** The service answered (even with a refusal): it is up. */
export function answered(err: unknown): boolean {
  return err instanceof ServiceError && err.kind === 'http' && err.status !== undefined && err.status < 500 && !NOT_ANSWERED.has(err.status);
}

export function errorFields(err: unknown): { code: string; message: string } {
  return err instanceof ServiceError ? { code: err.code, message: err.message } : { code: 'error', message: String(err) };
}

/** A price as the execution service takes it: a decimal string (the signal's prices are already at the symbol's digits). */
function priceString(value: number): string {
  return decimalFromNumber(value, 10);
}

/**
 * The order the execution service receives for a signal; built from the stored signal (its volume
 * decided before it was stored, else `volume`), so every retry sends the same bytes.
 */
export function submissionFor(signal: StrategySignal, volume: string, source: string): SignalSubmissionInput {
  return {
    signal_id: signal.signal_id,
    occurred_at: signal.generated_at,
    execution_type: 'market',
    symbol: signal.symbol,
    direction: signal.type === 'LONG' ? 'buy' : 'sell',
    volume: signal.execution.volume ?? volume,
    source,
    stop_loss: priceString(signal.stop_loss),
    take_profit: priceString(signal.take_profit),
    note: `fxdesk strategy ${signal.type} ${signal.instrument} ${signal.timeframe} confluence ${signal.confluence_score}/4`,
    // A signal is only worth trading while fresh: a retry past SIGNAL_MAX_AGE_SECONDS is refused.
    ignore_signal_age: false,
  };
}

/** The announcement of a signal (plain text). */
export function announcement(signal: StrategySignal): { subject: string; message: string } {
  const mode = signal.dry_run ? 'paper' : 'live';
  const { status, code, message } = signal.execution;
  const outcome =
    status === 'skipped' ? `skipped (${code}): ${message}` : signal.dry_run ? 'paper trade opened' : `execution: ${status}${code ? ` (${code})` : ''}`;
  return {
    subject: `${signal.type} ${signal.instrument} (${mode})`,
    message: [
      `${signal.type} ${signal.instrument} at ${signal.entry_price}`,
      `stop ${signal.stop_loss} · target ${signal.take_profit} · R:R ${signal.risk_reward}`,
      `confluence ${signal.confluence_score}/4 on ${signal.timeframe}, candle ${signal.candle_time}`,
      outcome,
      `signal ${signal.signal_id}`,
    ].join('\n'),
  };
}

/**
 * Sends each signal downstream: the order to the execution service (dry_run false) and the
 * announcement to the notification service, each idempotent by the signal_id, retried with a
 * doubling delay while the failure may pass, and the outcome stored with the signal. A failure
 * is recorded (status, downstream health, log), never thrown: the strategy goes on.
 */
export class SignalDispatcher {
  private readonly inFlight = new Set<Promise<void>>();
  /** The signal_ids being sent: a resume never starts a second send of one. */
  private readonly sending = new Set<string>();
  /** One more at each standDown: a send of an earlier turn stops at its next wait. */
  private turn = 0;
  /** Downstream calls on the wire right now (a task waiting for its retry delay has none). */
  private readonly calls = new Set<Promise<unknown>>();
  private readonly timers = new Set<{ handle: TimerHandle; resolve: () => void }>();
  private isClosed = false;

  constructor(private readonly o: DispatchOptions) {}

  /** The initial downstream states of a new signal. */
  initialStates(dryRun: boolean): { execution: SignalExecution; notification: SignalNotification } {
    const execution: SignalExecution = {
      status: dryRun ? 'paper' : this.o.execution ? 'pending' : 'not_configured',
      code: null,
      message: null,
      tickets: null,
      attempts: 0,
      updated_at: null,
    };
    const notification: SignalNotification = {
      status: this.o.notification ? 'pending' : 'not_configured',
      request_id: null,
      delivery_ids: [],
      message: null,
      attempts: 0,
      updated_at: null,
    };
    return { execution, notification };
  }

  /** Starts sending a stored signal; returns at once (whenIdle waits). */
  dispatch(signal: StrategySignal): void {
    if (this.isClosed || this.sending.has(signal.signal_id)) return;
    this.sending.add(signal.signal_id);
    const task = this.run(signal, this.turn)
      .catch((err: unknown) => this.o.logger.error({ err, signalId: signal.signal_id }, 'dispatching a signal failed'))
      .finally(() => this.sending.delete(signal.signal_id));
    this.inFlight.add(task);
    void task.finally(() => this.inFlight.delete(task));
  }

  /** Sends again what a previous process, or the replica that led before, left pending (a crash between storing and sending). */
  async resumeUnfinished(): Promise<number> {
    const pending = await this.o.signals.unfinished();
    for (const signal of pending) this.dispatch(signal);
    return pending.length;
  }

  /**
   * Gives up the retries waiting now (this replica no longer leads): their signals stay pending
   * for the next leader's resume. A call on the wire finishes and is stored.
   */
  standDown(): void {
    this.turn++;
    this.cancelWaits();
  }

  /** Waits until no downstream call is on the wire; a send waiting for its retry delay counts as idle. */
  async whenIdle(): Promise<void> {
    while (this.calls.size > 0) {
      await Promise.allSettled([...this.calls]);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Stops retrying (an attempt in progress finishes; what stays pending is resumed at the next start). */
  async close(): Promise<void> {
    this.isClosed = true;
    this.cancelWaits();
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private cancelWaits(): void {
    for (const t of this.timers) {
      this.o.clock.clearTimer(t.handle);
      t.resolve();
    }
    this.timers.clear();
  }

  private onWire<T>(call: Promise<T>): Promise<T> {
    this.calls.add(call);
    const done = () => this.calls.delete(call);
    call.then(done, done);
    return call;
  }

  private async run(initial: StrategySignal, turn: number): Promise<void> {
    let signal = initial;
    if (signal.execution.status === 'pending') {
      const execution = await this.submit(signal, turn);
      if (execution) {
        await this.o.signals.updateExecution(signal, execution);
        signal = { ...signal, execution };
        this.o.events.deskChanged();
        this.o.onSubmitted?.(signal, execution);
      }
    }
    if (signal.notification.status === 'pending' && turn === this.turn) {
      const notification = await this.announce(signal, turn);
      if (notification) {
        await this.o.signals.updateNotification(signal, notification);
        this.o.events.deskChanged();
      }
    }
  }

  /** Submits the order; the final state, or undefined when closed before one was reached. */
  private async submit(signal: StrategySignal, turn: number): Promise<SignalExecution | undefined> {
    const client = this.o.execution as ExecutionClient;
    const payload = submissionFor(signal, this.o.volume, this.o.source);
    let attempts = signal.execution.attempts;
    for (let retry = 0; ; retry++) {
      attempts++;
      const now = () => new Date(this.o.clock.now()).toISOString();
      try {
        const { result, replayed } = await this.onWire(client.submitSignal(payload));
        this.o.health.ok('execution');
        this.o.logger.info(
          { signalId: signal.signal_id, state: result.state, replayed, order: result.tickets.order },
          `order for ${signal.type} ${signal.instrument}: ${result.state}`,
        );
        return { ...signal.execution, status: result.state, code: null, message: null, tickets: result.tickets, attempts, updated_at: now() };
      } catch (err) {
        if (answered(err)) this.o.health.ok('execution');
        else this.o.health.fail('execution', err, { signalId: signal.signal_id });
        const { code, message } = errorFields(err);
        const canRetry = isRetryable(err) && retry < this.o.retries;
        if (!canRetry) {
          const status = err instanceof ServiceError && err.status === 503 && FINAL_UNKNOWN.has(code) ? 'unknown' : answered(err) ? 'rejected' : 'failed';
          // A stop the market has moved within the venue's stops level is the market's refusal, not the desk's fault: recorded on the signal, told at info.
          const level = status === 'rejected' && code === 'invalid_stops' ? 'info' : 'warn';
          this.o.logger[level]({ signalId: signal.signal_id, code, err: message }, `order for ${signal.type} ${signal.instrument}: ${status}`);
          return { ...signal.execution, status, code, message, tickets: null, attempts, updated_at: now() };
        }
        if (!(await this.pause(retry, err, turn))) return undefined;
      }
    }
  }

  private async announce(signal: StrategySignal, turn: number): Promise<SignalNotification | undefined> {
    const client = this.o.notification as NotificationClient;
    const { subject, message } = announcement(signal);
    let attempts = signal.notification.attempts;
    for (let retry = 0; ; retry++) {
      attempts++;
      const now = () => new Date(this.o.clock.now()).toISOString();
      try {
        const result = await this.onWire(client.send({ message, subject, channels: this.o.channels, source: this.o.source, idempotencyKey: signal.signal_id }));
        this.o.health.ok('notification');
        if (result.status === 'skipped') return { status: 'skipped', request_id: null, delivery_ids: [], message: null, attempts, updated_at: now() };
        return { status: 'sent', request_id: result.requestId, delivery_ids: result.deliveryIds, message: null, attempts, updated_at: now() };
      } catch (err) {
        if (answered(err)) this.o.health.ok('notification');
        else this.o.health.fail('notification', err, { signalId: signal.signal_id });
        if (!isRetryable(err) || retry >= this.o.retries) {
          const { message: why } = errorFields(err);
          return { status: 'failed', request_id: null, delivery_ids: [], message: why, attempts, updated_at: now() };
        }
        if (!(await this.pause(retry, err, turn))) return undefined;
      }
    }
  }

  /** Waits before retry `retry` (1 s, 2 s, 4 s…, or the server's Retry-After when longer); false when closed or stood down meanwhile. */
  private pause(retry: number, err: unknown, turn: number): Promise<boolean> {
    const retryAfterMs = err instanceof ServiceError && err.retryAfterSeconds !== undefined ? err.retryAfterSeconds * 1000 : 0;
    const delayMs = backoffDelayMs(RETRY_BACKOFF, retry, { atLeastMs: retryAfterMs });
    return new Promise((resolve) => {
      if (this.isClosed || turn !== this.turn) return resolve(false);
      const entry = {
        handle: this.o.clock.setTimeout(() => {
          this.timers.delete(entry);
          resolve(!this.isClosed && turn === this.turn);
        }, delayMs),
        resolve: () => resolve(false),
      };
      this.timers.add(entry);
    });
  }
}
