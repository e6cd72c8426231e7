import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../testing/processes.js';
import { EventLoopDelayWindow, type DelayHistogram } from '../src/event-loop-delay.js';
import type { App } from '../src/service.js';
import { testService } from './kit.js';

const MS = 1e6;

/** Node's histogram as the window reads it: the gaps between timer turns, in nanoseconds. */
class FakeHistogram implements DelayHistogram {
  private gaps: number[] = [];
  record(...gapsMs: number[]): void {
    this.gaps.push(...gapsMs.map((ms) => ms * MS));
  }
  get count(): number {
    return this.gaps.length;
  }
  get max(): number {
    return Math.max(0, ...this.gaps);
  }
  percentile(percentile: number): number {
    const sorted = [...this.gaps].sort((a, b) => a - b);
    return sorted[Math.max(0, Math.ceil((percentile / 100) * sorted.length) - 1)] ?? 0;
  }
  reset(): void {
    this.gaps = [];
  }
  disable(): boolean {
    return true;
  }
}

/** A window over two fake histograms, rotated by the test (each call of `rotate` is half a window). */
function fakeWindow() {
  const histograms: FakeHistogram[] = [];
  let rotate = () => {};
  const window = new EventLoopDelayWindow({
    resolutionMs: 10,
    monitor: () => {
      const histogram = new FakeHistogram();
      histograms.push(histogram);
      return histogram;
    },
    every: (_ms, fn) => {
      rotate = fn;
      return () => {};
    },
  });
  /** A turn of the event loop, seen by both histograms as node's monitors see it. */
  const gap = (...gapsMs: number[]) => histograms.forEach((h) => h.record(...gapsMs));
  return { window, gap, rotate: () => rotate() };
}

describe('EventLoopDelayWindow', () => {
  it('reads the median, the 99th percentile and the maximum in seconds, net of the sampling interval', () => {
    const { window, gap } = fakeWindow();
    gap(...Array.from({ length: 98 }, () => 10.5), 30, 60);
    expect(window.read()).toEqual({ p50Seconds: 0.0005, p99Seconds: 0.02, maxSeconds: 0.05 });
  });

  it('reads zeros before the first turn of the loop is recorded', () => {
    const { window } = fakeWindow();
    expect(window.read()).toEqual({ p50Seconds: 0, p99Seconds: 0, maxSeconds: 0 });
  });

  it('keeps a stall for at least half a window and forgets it after a whole one', () => {
    const { window, gap, rotate } = fakeWindow();
    gap(210);
    rotate();
    gap(10);
    expect(window.read().maxSeconds).toBe(0.2);
    rotate();
    expect(window.read().maxSeconds).toBe(0);
  });

  it('always includes the latest turns of the loop', () => {
    const { window, gap, rotate } = fakeWindow();
    rotate();
    rotate();
    gap(110);
    expect(window.read().maxSeconds).toBe(0.1);
  });
});

describe('the process event-loop delay on /metrics', () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.close();
  });

  it('is exposed by every kit-built service, with its three quantiles', async () => {
    app = await testService();
    const text = (await app.inject({ url: '/metrics' })).body;
    expect(text).toContain('# TYPE fxdesk_process_event_loop_delay_seconds gauge');
    for (const quantile of ['0.5', '0.99', '1'])
      expect(text).toMatch(new RegExp(`^fxdesk_process_event_loop_delay_seconds\\{quantile="${quantile}"\\} [0-9.e-]+$`, 'm'));
  });

  it("measures a real stall of this process's event loop", async () => {
    const window = new EventLoopDelayWindow();
    // Blocks the loop for 100 ms until the window shows it: the sampling timer's next turn then
    // comes at least 90 ms late (a stall before its first turn, which only starts the count, shows nothing).
    const stalled = () => {
      if (window.read().maxSeconds >= 0.09) return true;
      const end = performance.now() + 100;
      while (performance.now() < end);
      return false;
    };
    try {
      await until(stalled, 5000);
    } finally {
      window.stop();
    }
  });
});
