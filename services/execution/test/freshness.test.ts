import { AppError } from '@fxdesk/core';
import { SignalSubmissionSchema } from '@fxdesk/schemas';
import { describe, expect, it } from 'vitest';
import { checkFreshness } from '../src/freshness.js';
import { NOW, signal as fixture } from './helpers.js';

const now = NOW;
const limits = { maxAgeSeconds: 60, futureToleranceSeconds: 5 };

const signal = (extra: Record<string, unknown>) => SignalSubmissionSchema.parse(fixture(extra));

function codeOf(fn: () => void): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return (err as AppError).code;
  }
}

describe('freshness', () => {
  it('skips the age check by default (ignore_signal_age defaults to true)', () => {
    expect(codeOf(() => checkFreshness(signal({ occurred_at: '2026-01-04T12:00:00Z' }), now, limits))).toBeUndefined();
  });

  it('rejects a signal older than SIGNAL_MAX_AGE_SECONDS when ignore_signal_age is false', () => {
    expect(codeOf(() => checkFreshness(signal({ occurred_at: '2026-01-05T11:58:59Z', ignore_signal_age: false }), now, limits))).toBe('signal_too_old');
  });

  it('accepts a signal exactly SIGNAL_MAX_AGE_SECONDS old', () => {
    expect(codeOf(() => checkFreshness(signal({ occurred_at: '2026-01-05T11:59:00Z', ignore_signal_age: false }), now, limits))).toBeUndefined();
  });

  it('rejects a signal beyond the future tolerance even when the age check is skipped', () => {
    expect(codeOf(() => checkFreshness(signal({ occurred_at: '2026-01-05T12:00:06Z' }), now, limits))).toBe('signal_in_future');
    expect(codeOf(() => checkFreshness(signal({ occurred_at: '2026-01-05T12:00:05Z' }), now, limits))).toBeUndefined();
  });

  it('rejects a signal whose expires_at has passed even when the age check is skipped', () => {
    expect(codeOf(() => checkFreshness(signal({ expires_at: '2026-01-05T12:00:00Z' }), now, limits))).toBe('signal_expired');
    expect(codeOf(() => checkFreshness(signal({ expires_at: '2026-01-05T12:00:01Z' }), now, limits))).toBeUndefined();
  });
});
