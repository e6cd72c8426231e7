import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { connectEvents, reopenDelayMs, type EventHandlers } from '../src/events.js';

/** Stands in for the browser's EventSource: the test opens, feeds and breaks it. */
class FakeEventSource {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  static made: FakeEventSource[] = [];
  readyState = FakeEventSource.CONNECTING;
  onopen: (() => void) | null = null;
  onerror: (() => void) | null = null;
  private readonly listeners = new Map<string, (event: { data: string }) => void>();

  constructor(readonly url: string) {
    FakeEventSource.made.push(this);
  }

  addEventListener(name: string, listener: (event: { data: string }) => void) {
    this.listeners.set(name, listener);
  }

  open() {
    this.readyState = FakeEventSource.OPEN;
    this.onopen?.();
  }

  emit(name: string, data: string) {
    this.listeners.get(name)?.({ data });
  }

  fail(readyState: number) {
    this.readyState = readyState;
    this.onerror?.();
  }

  close() {
    this.readyState = FakeEventSource.CLOSED;
  }
}

function recorder() {
  const calls: string[] = [];
  const handlers: EventHandlers = {
    onEvent: (name, data) => calls.push(`${name} ${JSON.stringify(data)}`),
    onOpen: () => calls.push('open'),
    onInterrupted: () => calls.push('interrupted'),
    onRestart: () => calls.push('restart'),
  };
  return { calls, handlers };
}

describe('the event stream', () => {
  beforeEach(() => {
    FakeEventSource.made = [];
    vi.stubGlobal('EventSource', FakeEventSource);
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it('hands on each named event with its JSON data, and skips data that is not JSON', () => {
    const { calls, handlers } = recorder();
    connectEvents('/events', handlers);
    const source = FakeEventSource.made[0] as FakeEventSource;
    source.open();
    source.emit('pair', '{"instrument":"EUR_USD"}');
    source.emit('status', 'not json');
    expect(calls).toEqual(['open', 'pair {"instrument":"EUR_USD"}']);
  });

  it("leaves a broken stream to the browser's own reconnection (it resumes with Last-Event-ID)", () => {
    const { calls, handlers } = recorder();
    connectEvents('/events', handlers);
    const source = FakeEventSource.made[0] as FakeEventSource;
    source.open();
    source.fail(FakeEventSource.CONNECTING);
    source.open();
    expect(FakeEventSource.made).toHaveLength(1);
    expect(calls).toEqual(['open', 'interrupted', 'open']);
  });

  it('opens a stream the browser gave up on again after a pause, and asks for a fresh read', () => {
    const { calls, handlers } = recorder();
    connectEvents('/events', handlers);
    (FakeEventSource.made[0] as FakeEventSource).fail(FakeEventSource.CLOSED);
    vi.advanceTimersByTime(reopenDelayMs(0) - 1);
    expect(FakeEventSource.made).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(FakeEventSource.made).toHaveLength(2);
    (FakeEventSource.made[1] as FakeEventSource).open();
    expect(calls).toEqual(['interrupted', 'open', 'restart']);
  });

  it('waits longer after each refusal, up to 15 s', () => {
    expect([0, 1, 2, 3, 4, 10].map(reopenDelayMs)).toEqual([1000, 2000, 4000, 8000, 15_000, 15_000]);
  });

  it('stops listening when closed', () => {
    const { calls, handlers } = recorder();
    const close = connectEvents('/events', handlers);
    close();
    (FakeEventSource.made[0] as FakeEventSource).fail(FakeEventSource.CLOSED);
    vi.advanceTimersByTime(60_000);
    expect(FakeEventSource.made).toHaveLength(1);
    expect(calls).toEqual([]);
  });
});
