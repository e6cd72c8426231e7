import type { ActionRecord } from '@fxdesk/schemas';
import { describe, expect, it } from 'vitest';
import { closeKey, exitMarksOf, stopKey } from '../src/exit-marks.js';

let received = 0;
/** An action record as GET /v1/actions lists it, each received a second after the one before. */
function action(kind: ActionRecord['kind'], key: string, fields: Partial<ActionRecord> = {}): ActionRecord {
  received++;
  return {
    action_id: key,
    idempotency_key: key,
    kind,
    ticket: '501',
    state: 'done',
    request: {},
    order_comment: 'close:0123456789abcdef0123456',
    http_status: 200,
    result: null,
    error: null,
    reconciliation: null,
    received_at: new Date(Date.UTC(2026, 0, 5, 12, 0, received)).toISOString(),
    completed_at: null,
    updated_at: new Date(Date.UTC(2026, 0, 5, 12, 0, received)).toISOString(),
    ...fields,
  };
}

describe('why the strategy closed a position, from its action records', () => {
  it('reads the exit rules’ closes by their keys, a flatten by its record, and anyone else’s as nothing (manual)', () => {
    expect(exitMarksOf([action('close', closeKey('time', '501'))])).toEqual({ close: 'time' });
    expect(exitMarksOf([action('close', closeKey('opposite_signal', '501'))])).toEqual({ close: 'opposite_signal' });
    expect(exitMarksOf([action('close', 'strategy-stop-1767614400000#501', { idempotency_key: 'strategy-stop-1767614400000' })])).toEqual({ close: 'flatten' });
    expect(exitMarksOf([action('close', 'console-9f0c2d4e')])).toEqual({});
    expect(exitMarksOf([])).toEqual({});
  });

  it('takes the newest close that was not refused', () => {
    const refused = action('close', 'console-late', { state: 'rejected', http_status: 422 });
    expect(exitMarksOf([action('close', closeKey('time', '501')), refused])).toEqual({ close: 'time' });
    expect(exitMarksOf([action('close', 'console-partial'), action('close', closeKey('time', '501'))])).toEqual({ close: 'time' });
    expect(exitMarksOf([action('close', closeKey('time', '501')), action('close', 'console-after')])).toEqual({});
  });

  it('names a stop hit by the exit rule that moved the stop last, unless someone moved it since', () => {
    const breakEven = action('modify', stopKey('break_even', '501', 1_767_614_400));
    const trailing = action('modify', stopKey('trailing', '501', 1_767_614_700));
    expect(exitMarksOf([breakEven])).toEqual({ stop: 'break_even' });
    expect(exitMarksOf([breakEven, trailing])).toEqual({ stop: 'trailing' });
    expect(exitMarksOf([breakEven, trailing, action('modify', 'console-sl')])).toEqual({});
    expect(exitMarksOf([breakEven, action('modify', stopKey('trailing', '501', 1_767_615_000), { state: 'rejected' })])).toEqual({ stop: 'break_even' });
  });
});
