import { describe, expect, it } from 'vitest';
import { applyPlatformUpdate, type TrackedState } from '../src/status.js';

const queued: TrackedState = { status: 'queued', error: null, sentAt: null, deliveredAt: null, readAt: null };
const unknown: TrackedState = { ...queued, status: 'failed', error: { code: 'outcome_unknown', message: 'not resent' } };

describe('queued and undelivered (Twilio)', () => {
  it('moves queued → sent → delivered, setting sentAt only when it is sent', () => {
    expect(applyPlatformUpdate(queued, { status: 'queued', at: 1000 })).toBeNull();
    const sent = applyPlatformUpdate(queued, { status: 'sent', at: 2000 });
    expect(sent).toEqual({ ...queued, status: 'sent', sentAt: 2000 });
    expect(applyPlatformUpdate(sent as TrackedState, { status: 'delivered', at: 3000 })).toMatchObject({
      status: 'delivered',
      sentAt: 2000,
      deliveredAt: 3000,
    });
  });

  it('never takes a sent record back to queued', () => {
    const sent: TrackedState = { ...queued, status: 'sent', sentAt: 2000 };
    expect(applyPlatformUpdate(sent, { status: 'queued', at: 2500 })).toBeNull();
  });

  it('records undelivered with its error before delivery, and ignores it after', () => {
    const error = { code: '30003', message: 'Unreachable destination handset' };
    expect(applyPlatformUpdate({ ...queued, status: 'sent', sentAt: 2000 }, { status: 'undelivered', at: 3000, error })).toMatchObject({
      status: 'undelivered',
      error,
    });
    expect(applyPlatformUpdate({ ...queued, status: 'delivered', sentAt: 2000, deliveredAt: 3000 }, { status: 'undelivered', at: 4000, error })).toBeNull();
  });

  it('keeps the first failure reported: a failed after undelivered changes nothing', () => {
    const undelivered: TrackedState = { ...queued, status: 'undelivered', error: { code: '30005', message: 'unknown handset' } };
    expect(applyPlatformUpdate(undelivered, { status: 'failed', at: 5000, error: { code: '30001', message: 'queue overflow' } })).toBeNull();
  });

  it('lets a device receipt win over undelivered, keeping the failure as history', () => {
    const undelivered: TrackedState = { ...queued, status: 'undelivered', error: { code: '30005', message: 'unknown handset' } };
    expect(applyPlatformUpdate(undelivered, { status: 'delivered', at: 6000 })).toMatchObject({ status: 'delivered', error: { code: '30005' } });
    expect(applyPlatformUpdate(undelivered, { status: 'sent', at: 6000 })).toMatchObject({ status: 'undelivered', sentAt: 6000 });
  });
});

describe('an outcome_unknown failure of ours', () => {
  it('is resolved by any report that the message went out, which clears the error', () => {
    expect(applyPlatformUpdate(unknown, { status: 'queued', at: 1000 })).toEqual({ ...unknown, status: 'queued', error: null });
    expect(applyPlatformUpdate(unknown, { status: 'sent', at: 1000 })).toEqual({ ...unknown, status: 'sent', error: null, sentAt: 1000 });
  });

  it("is replaced by the provider's own failure", () => {
    const error = { code: '30001', message: 'queue overflow' };
    expect(applyPlatformUpdate(unknown, { status: 'failed', at: 1000, error })).toEqual({ ...unknown, error });
  });

  it('stays a failure on a channel that reports nothing more', () => {
    expect(applyPlatformUpdate({ ...unknown, error: { code: '131026', message: 'undeliverable' } }, { status: 'sent', at: 1000 })).toMatchObject({
      status: 'failed',
      error: { code: '131026' },
    });
  });
});
