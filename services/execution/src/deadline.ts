import { BrokerError } from '@fxdesk/broker';
import type { Clock } from '@fxdesk/primitives';
import type { Logger } from 'pino';
import { errors } from './errors.js';

export interface Deadline {
  clock: Clock;
  timeoutMs: number;
  /** The setting that bounds the call, named in the timeout's message. */
  setting: string;
}

/**
 * Runs a terminal call bounded by a deadline: it settles as the call does, or rejects with a
 * BrokerError `timeout` once `timeoutMs` pass. An answer that comes after that never reaches
 * the caller, who has moved on; it goes to `onLate` (a late failure is dropped).
 */
export function withDeadline<T>(call: () => Promise<T>, { clock, timeoutMs, setting }: Deadline, onLate?: (value: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timedOut = false;
    const timer = clock.setTimeout(() => {
      timedOut = true;
      reject(new BrokerError('timeout', `no answer within ${setting}=${timeoutMs}`));
    }, timeoutMs);
    let calling: Promise<T>;
    try {
      calling = call();
    } catch (err) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the caller gets what the call threw, unchanged
      calling = Promise.reject(err);
    }
    calling.then(
      (value) => {
        clock.clearTimer(timer);
        if (!timedOut) resolve(value);
        else onLate?.(value);
      },
      (err: unknown) => {
        clock.clearTimer(timer);
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the caller gets what the call rejected with, unchanged
        if (!timedOut) reject(err);
      },
    );
  });
}

/** An error's message, for a line that names it. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * A terminal call that cannot trade (symbol_info, tick, order_check), made before the one that
 * does (`before`), bounded by PRE_SEND_TIMEOUT_MS: any failure is a retryable 503
 * `broker_unavailable`. A late answer is dropped, so it can never lead to a send.
 */
export async function preSendCall<T>(
  name: string,
  call: () => Promise<T>,
  { clock, timeoutMs, logger, before }: { clock: Clock; timeoutMs: number; logger: Logger; before: string },
): Promise<T> {
  try {
    return await withDeadline(call, { clock, timeoutMs, setting: 'PRE_SEND_TIMEOUT_MS' });
  } catch (err) {
    logger.warn({ err }, `${name} failed before ${before}`);
    throw errors.create('broker_unavailable', `the terminal did not answer ${name}: ${messageOf(err)}`, { headers: { 'retry-after': '1' } });
  }
}
