/**
 * Why the strategy closed a position, or moved its stop, read back from the execution service's
 * action records on its ticket (GET /v1/actions?ticket=), so the journal names the rule after a
 * restart and on any replica: the venue's deals say only `sl`, or that someone asked for a close.
 * The strategy's keys say what each action was for: `exit-time:<ticket>`,
 * `exit-opposite:<ticket>`, `exit-break_even:<ticket>:<candle>`, `exit-trailing:<ticket>:<candle>`;
 * a flatten's close of a position is the record `<key>#<ticket>`.
 */
import type { ActionRecord } from '@fxdesk/schemas';
import type { CloseReason, StopReason } from '@fxdesk/trading';

/** What the strategy did to a position that its deals do not say. */
export interface ExitMarks {
  /** The exit rule that set its stop last. */
  stop?: Exclude<StopReason, 'stop'>;
  /** Why the strategy asked for its close. */
  close?: CloseReason | 'flatten';
}

/** The key of the exit rules' close of a position. */
export const closeKey = (reason: CloseReason, ticket: string): string => `exit-${reason === 'time' ? 'time' : 'opposite'}:${ticket}`;

/** The key of the exit rules' move of a position's stop at a candle. */
export const stopKey = (reason: Exclude<StopReason, 'stop'>, ticket: string, candleTime: number): string => `exit-${reason}:${ticket}:${candleTime}`;

const CLOSE_REASONS: Record<string, CloseReason> = { 'exit-time': 'time', 'exit-opposite': 'opposite_signal' };
const STOP_REASONS: Record<string, Exclude<StopReason, 'stop'>> = { 'exit-break_even': 'break_even', 'exit-trailing': 'trailing' };

/**
 * The marks of a position from its actions (any order): the newest close that was not refused
 * names the close (a flatten's, the exit rules', or none: someone's), the newest stop the exit
 * rules moved names a hit of the stop.
 */
export function exitMarksOf(actions: readonly ActionRecord[]): ExitMarks {
  const newestFirst = [...actions].sort((a, b) => (a.received_at < b.received_at ? 1 : a.received_at > b.received_at ? -1 : 0));
  const marks: ExitMarks = {};
  const close = newestFirst.find((a) => a.kind === 'close' && a.state !== 'rejected');
  if (close) {
    const prefix = close.idempotency_key.split(':')[0] ?? '';
    const reason = close.action_id.includes('#') ? 'flatten' : CLOSE_REASONS[prefix];
    if (reason) marks.close = reason;
  }
  const moved = newestFirst.find((a) => a.kind === 'modify' && a.state === 'done');
  const stop = moved && STOP_REASONS[moved.idempotency_key.split(':')[0] ?? ''];
  if (stop) marks.stop = stop;
  return marks;
}
