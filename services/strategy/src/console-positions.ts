import { ServiceError, type ActionOutcome, type ExecutionClient } from '@fxdesk/client';
import { AppError } from '@fxdesk/core';
import type { ActionAnswer, ClosePositionBody, ClosePositionsAnswer, OpenPositionList } from '@fxdesk/schemas';
import { downstreamFailure, errors } from './errors.js';
import type { LiveJournal } from './live-journal.js';

export interface ConsolePositionsOptions {
  /** Set with EXECUTION_URL; without it every call is 404 NOT_CONFIGURED. */
  execution?: ExecutionClient;
  /** SIGNAL_SOURCE: the console lists and flattens the positions of the strategy's own orders. */
  source: string;
  /** Set with EXECUTION_URL: journals what a flatten closed with the reason `flatten`. */
  liveJournal?: LiveJournal;
}

/**
 * The console's positions through the execution service, with the strategy's key: the open
 * positions of SIGNAL_SOURCE's orders, a close of one and a flatten of them all. A close or a
 * flatten goes out once, under the console's Idempotency-Key, and is never repeated here: the
 * console repeats it with the same key, which the execution service answers from its record.
 * What the execution service answered an action (a refusal, 409, 503 `execution_outcome_unknown`)
 * is answered as it is; a read's failures as `downstreamFailure` has them.
 */
export class ConsolePositions {
  constructor(private readonly options: ConsolePositionsOptions) {}

  async open(): Promise<OpenPositionList> {
    return this.client()
      .positions({ source: this.options.source })
      .catch((err: unknown) => Promise.reject(downstreamFailure(err, 'execution')));
  }

  async close(ticket: string, idempotencyKey: string, body: ClosePositionBody): Promise<ActionOutcome<ActionAnswer>> {
    return this.client()
      .closePosition(ticket, idempotencyKey, body)
      .catch((err: unknown) => Promise.reject(actionFailure(err)));
  }

  /** The flatten of SIGNAL_SOURCE's positions; what it closed is journaled `flatten`, as a stop's flatten is. */
  async closeAll(idempotencyKey: string): Promise<ActionOutcome<ClosePositionsAnswer>> {
    const execution = this.client();
    const send = () => execution.closeAll(idempotencyKey, { source: this.options.source });
    return (this.options.liveJournal?.flatten(send) ?? send()).catch((err: unknown) => Promise.reject(actionFailure(err)));
  }

  private client(): ExecutionClient {
    const { execution } = this.options;
    if (execution === undefined) throw errors.create('not_configured', 'the strategy has no EXECUTION_URL: it does not use the execution service');
    return execution;
  }
}

/**
 * The execution service's own answer to an action (a 4xx, or a 503 such as
 * `execution_outcome_unknown`), with its code, status and Retry-After; no answer (a timeout, a
 * lost connection) or a 5xx is `downstreamFailure`'s, whose outcome is as unknown: repeat it with the same key.
 */
function actionFailure(err: unknown): AppError {
  if (!(err instanceof ServiceError) || err.kind !== 'http' || err.status === undefined || (err.status >= 500 && err.status !== 503)) {
    return downstreamFailure(err, 'execution');
  }
  const headers = err.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(err.retryAfterSeconds) };
  return new AppError(err.code.toLowerCase(), err.message, { status: err.status, headers, details: err.details });
}
