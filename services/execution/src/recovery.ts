import type { TerminalRecord, TradingTerminal } from '@fxdesk/broker';
import type { ActionReconciliation, Reconciliation } from '@fxdesk/schemas';
import { envelope } from '@fxdesk/core';
import type { Clock } from '@fxdesk/primitives';
import type { Logger } from 'pino';
import { INTERRUPTED_ACTION_MESSAGE } from './actions.js';
import { INTERRUPTED_MESSAGE } from './pipeline.js';
import type { InterruptedAction } from './action-store.js';
import type { InterruptedSignal, SignalStore } from './store.js';

export interface RecoveryDeps {
  terminal: TradingTerminal;
  store: SignalStore;
  clock: Clock;
  logger: Logger;
  /** MAGIC_NUMBER: the terminal is searched for the service's own orders. */
  magic: number;
}

/** How often a running replica looks for claims of other replicas past their lease. */
export const SWEEP_INTERVAL_MS = 5_000;

/**
 * Fails the interrupted signals, then looks them up on the terminal in the background (the
 * service does not wait for the terminal to answer). At start-up, before the service listens,
 * `includeOwn`: this replica's own claims left `processing` are interrupted too.
 */
export async function recoverInterruptedSignals(deps: RecoveryDeps, options: { includeOwn: boolean }): Promise<void> {
  // Side by side: a sweep lasts as long as the slower of the two, not their sum.
  const [signals, actions] = await Promise.all([
    failInterruptedSignals(deps.store, deps.clock, deps.logger, options),
    failInterruptedActions(deps.store, deps.clock, deps.logger, options),
  ]);
  void reconcileInterrupted(signals, deps).then(() => reconcileInterruptedActions(actions, deps));
}

/**
 * While the service runs: every SWEEP_INTERVAL_MS, the claims of other replicas past their lease
 * (their owner died) are interrupted and reconciled, so a retry gets their answer rather than
 * 409 signal_in_progress for ever. Returns the function that stops it.
 */
export function sweepAbandonedClaims(deps: RecoveryDeps): () => void {
  let sweeping = false;
  // A tick that finds a sweep running is not dropped: one more sweep follows it, so a lease that
  // ended while the store was slow is still seen at the next moment, not a whole interval later.
  let again = false;
  let stopped = false;
  const sweep = (): void => {
    if (sweeping) {
      again = true;
      return;
    }
    sweeping = true;
    again = false;
    recoverInterruptedSignals(deps, { includeOwn: false })
      .catch((err: unknown) => deps.logger.warn({ err }, 'could not look for abandoned claims'))
      .finally(() => {
        sweeping = false;
        if (again && !stopped) sweep();
      });
  };
  const timer = deps.clock.setInterval(sweep, SWEEP_INTERVAL_MS);
  timer.unref();
  return () => {
    stopped = true;
    deps.clock.clearTimer(timer);
  };
}

/**
 * Every signal whose claim outlived its lease, and with `includeOwn` every one this replica
 * left `processing` when it stopped, becomes `unknown`, answered (and replayed) 503
 * execution_outcome_unknown. It is never sent again.
 */
export async function failInterruptedSignals(store: SignalStore, clock: Clock, logger: Logger, options: { includeOwn: boolean }): Promise<InterruptedSignal[]> {
  const at = new Date(clock.now());
  const interrupted = await store.failAbandoned(
    at.toISOString(),
    (signal) => {
      const error = { code: 'execution_outcome_unknown', message: INTERRUPTED_MESSAGE };
      return { httpStatus: 503, error, responseBody: JSON.stringify(envelope(error.code, error.message, { requestId: signal.requestId, now: at })) };
    },
    options,
  );
  for (const signal of interrupted) {
    logger.error({ signalId: signal.signalId, orderComment: signal.orderComment }, 'signal interrupted (a replica stopped inside it): outcome unknown');
  }
  return interrupted;
}

/**
 * Looks each interrupted signal up on the terminal by its order comment and magic number and
 * keeps what it finds on the record (`reconciliation`), for the human who settles it. The
 * state stays `unknown` and the replayed answer does not change: this never trades.
 */
export async function reconcileInterrupted(signals: InterruptedSignal[], deps: RecoveryDeps): Promise<void> {
  for (const signal of signals) {
    const checkedAt = new Date(deps.clock.now()).toISOString();
    try {
      const records = await deps.terminal.findByComment(signal.orderComment, deps.magic);
      await deps.store.recordReconciliation(signal.signalId, { checked_at: checkedAt, found: records.map(foundOf) });
      if (records.length > 0)
        deps.logger.warn({ signalId: signal.signalId, found: records.length }, 'the terminal shows orders or deals for an unknown signal');
    } catch (err) {
      deps.logger.warn({ err, signalId: signal.signalId }, 'could not look an unknown signal up on the terminal');
      await deps.store
        .recordReconciliation(signal.signalId, { checked_at: checkedAt, found: [], error: err instanceof Error ? err.message : String(err) })
        .catch(() => undefined);
    }
  }
}

function foundOf(r: TerminalRecord): Reconciliation['found'][number] {
  return {
    kind: r.kind,
    ticket: r.ticket,
    symbol: r.symbol,
    type: r.type,
    volume: r.volume,
    price: r.price,
    state: r.state,
    time: new Date(r.time).toISOString(),
  };
}

/**
 * The same for actions on positions and orders: a close, a modification or a cancel left in
 * flight becomes `unknown`, answered (and replayed) 503 execution_outcome_unknown, never resent.
 * The closing deal, if the terminal made one, carries the action's comment (`close:<tag>`).
 */
export async function failInterruptedActions(store: SignalStore, clock: Clock, logger: Logger, options: { includeOwn: boolean }): Promise<InterruptedAction[]> {
  const at = new Date(clock.now());
  const interrupted = await store.actions.failAbandoned(
    at.toISOString(),
    (action) => {
      const error = { code: 'execution_outcome_unknown', message: INTERRUPTED_ACTION_MESSAGE };
      return { httpStatus: 503, error, responseBody: JSON.stringify(envelope(error.code, error.message, { requestId: action.requestId, now: at })) };
    },
    options,
  );
  for (const action of interrupted) {
    logger.error({ actionId: action.actionId, orderComment: action.orderComment }, 'action interrupted (a replica stopped inside it): outcome unknown');
  }
  return interrupted;
}

/**
 * Looks each interrupted action up on the terminal, as reconcileInterrupted does a signal: the
 * deals and orders of its comment (a close's closing deal; a modification or a cancel makes none)
 * and the position or order of its ticket as the terminal holds it now. Kept on the record
 * (`reconciliation`) for the human who settles it; the state stays `unknown`, this never trades.
 */
export async function reconcileInterruptedActions(actions: InterruptedAction[], deps: RecoveryDeps): Promise<void> {
  for (const action of actions) {
    const checkedAt = new Date(deps.clock.now()).toISOString();
    try {
      const [records, open] = await Promise.all([
        action.kind === 'close' ? deps.terminal.findByComment(action.orderComment, deps.magic) : [],
        openTicket(deps.terminal, action),
      ]);
      await deps.store.actions.recordReconciliation(action.actionId, { checked_at: checkedAt, found: records.map(foundOf), open });
      deps.logger.info({ actionId: action.actionId, found: records.length, open: open !== null }, 'looked an unknown action up on the terminal');
    } catch (err) {
      deps.logger.warn({ err, actionId: action.actionId }, 'could not look an unknown action up on the terminal');
      await deps.store.actions
        .recordReconciliation(action.actionId, { checked_at: checkedAt, found: [], open: null, error: err instanceof Error ? err.message : String(err) })
        .catch(() => undefined);
    }
  }
}

async function openTicket(terminal: TradingTerminal, action: InterruptedAction): Promise<ActionReconciliation['open']> {
  if (action.kind === 'cancel') {
    const order = (await terminal.orders()).find((o) => o.ticket === action.ticket);
    return order ? { kind: 'order', symbol: order.symbol, volume: order.volume, sl: order.sl, tp: order.tp } : null;
  }
  const position = (await terminal.positions()).find((p) => p.ticket === action.ticket);
  return position ? { kind: 'position', symbol: position.symbol, volume: position.volume, sl: position.sl, tp: position.tp } : null;
}
