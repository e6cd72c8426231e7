import type { LabEvent } from '@fxdesk/schemas';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/api.js';
import { FALLBACK_POLL_MS, isActive, jobNews, jobState, listNews, nextReadMs } from '../src/lab/jobs.js';

const event = (over: Partial<LabEvent> = {}): LabEvent => ({ kind: 'backtest', id: 'b1', status: 'running', progress: 0.5, sweep_id: null, ...over });

describe('following a job', () => {
  it('reads a job by itself only while it moves and the event stream is down, slowly', () => {
    expect(nextReadMs('queued', null, false)).toBeNull();
    expect(nextReadMs('running', null, false)).toBeNull();
    expect(nextReadMs('running', null, true)).toBe(FALLBACK_POLL_MS);
    for (const status of ['done', 'failed', 'cancelled'] as const) {
      expect(isActive(status)).toBe(false);
      expect(nextReadMs(status, null, true)).toBeNull();
    }
  });

  it('waits out a rate limit for as long as the service asks', () => {
    expect(nextReadMs(null, new ApiError(429, 'RATE_LIMITED', 'slow down', 12), false)).toBe(12_000);
  });

  it('tries again a few seconds after a failed read, and stops on a job that is gone', () => {
    expect(nextReadMs(null, new ApiError(0, 'NETWORK', 'down'), false)).toBe(5000);
    expect(nextReadMs(null, new ApiError(404, 'BACKTEST_NOT_FOUND', 'gone'), true)).toBeNull();
  });

  it('reads the job again when an event brings a new status, and moves its progress in place otherwise', () => {
    const job = { kind: 'backtest' as const, id: 'b1', status: 'running' as const };
    expect(jobNews(event({ progress: 0.7 }), job)).toEqual({ type: 'progress', progress: 0.7 });
    expect(jobNews(event({ status: 'done', progress: 1 }), job)).toEqual({ type: 'read' });
    expect(jobNews(event(), { ...job, status: null })).toEqual({ type: 'read' });
    expect(jobNews(event({ id: 'b2' }), job)).toBeNull();
    expect(jobNews(event({ kind: 'sweep' }), job)).toBeNull();
  });

  it("tells a sweep's page when one of its backtests ended, not when one moves or another sweep's ends", () => {
    const sweep = { kind: 'sweep' as const, id: 's1', status: 'running' as const };
    expect(jobNews(event({ status: 'done', sweep_id: 's1' }), sweep)).toEqual({ type: 'member_ended' });
    expect(jobNews(event({ status: 'failed', sweep_id: 's1' }), sweep)).toEqual({ type: 'member_ended' });
    expect(jobNews(event({ status: 'running', sweep_id: 's1' }), sweep)).toBeNull();
    expect(jobNews(event({ status: 'done', sweep_id: 's2' }), sweep)).toBeNull();
  });

  it("reads a list again for a job it does not hold or a listed one's new status, and leaves out a sweep's backtests", () => {
    const listed = [{ id: 'b1', status: 'running' as const }];
    expect(listNews(event({ progress: 0.6 }), 'backtest', listed)).toEqual({ type: 'progress', progress: 0.6 });
    expect(listNews(event({ status: 'done' }), 'backtest', listed)).toEqual({ type: 'read' });
    expect(listNews(event({ id: 'b9', status: 'queued' }), 'backtest', listed)).toEqual({ type: 'read' });
    expect(listNews(event({ id: 'b9', sweep_id: 's1' }), 'backtest', listed)).toBeNull();
    expect(listNews(event({ kind: 'sweep', id: 's1' }), 'backtest', listed)).toBeNull();
  });

  it('says how far a running job is', () => {
    expect(jobState({ status: 'running', progress: 0.426 })).toBe('running 42 %');
    expect(jobState({ status: 'queued', progress: 0 })).toBe('queued');
  });
});
