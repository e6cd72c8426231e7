import { monitorEventLoopDelay } from 'node:perf_hooks';

/** The part of node's event-loop delay histogram the window reads: nanoseconds between timer turns. */
export interface DelayHistogram {
  readonly count: number;
  readonly max: number;
  percentile(percentile: number): number;
  reset(): void;
  disable(): boolean;
}

export interface EventLoopDelayOptions {
  /** The figures cover between half of this and all of it, up to now. Default 60 s. */
  windowMs?: number;
  /** The interval of the sampling timer. Default 10 ms, node's own default. */
  resolutionMs?: number;
  /** Makes a started histogram; node's monitorEventLoopDelay by default (tests give fakes). */
  monitor?: (resolutionMs: number) => DelayHistogram;
  /** Calls `fn` every `ms` and returns how to stop; an unref'd setInterval by default (tests call it themselves). */
  every?: (ms: number, fn: () => void) => () => void;
}

export interface EventLoopDelay {
  p50Seconds: number;
  p99Seconds: number;
  maxSeconds: number;
}

function startMonitor(resolutionMs: number): DelayHistogram {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  return histogram;
}

function everyUnref(ms: number, fn: () => void): () => void {
  const timer = setInterval(fn, ms).unref();
  return () => clearInterval(timer);
}

/**
 * How late the event loop runs a timer, over a rolling window: two histograms record every
 * turn, and every half window the one reset longer ago is reset, so the other one (read) always
 * holds the last half to whole window up to now. Node's histograms cannot be merged, and a
 * reset at each scrape would make one scraper's figures depend on every other one's.
 *
 * Node records the time between the sampling timer's turns, so an idle loop reads about the
 * timer's interval; the figures here are net of it, the delay proper (an idle loop reads ~0).
 */
export class EventLoopDelayWindow {
  private readonly monitors: [DelayHistogram, DelayHistogram];
  private readonly resolutionNs: number;
  private readonly stopTimer: () => void;
  /** Index of the histogram reset longer ago: the one read. */
  private older: 0 | 1 = 0;

  constructor(options: EventLoopDelayOptions = {}) {
    const resolutionMs = options.resolutionMs ?? 10;
    const monitor = options.monitor ?? startMonitor;
    this.monitors = [monitor(resolutionMs), monitor(resolutionMs)];
    this.resolutionNs = resolutionMs * 1e6;
    this.stopTimer = (options.every ?? everyUnref)((options.windowMs ?? 60_000) / 2, () => this.rotate());
  }

  read(): EventLoopDelay {
    const histogram = this.monitors[this.older];
    if (histogram.count === 0) return { p50Seconds: 0, p99Seconds: 0, maxSeconds: 0 };
    const seconds = (ns: number) => Math.max(0, ns - this.resolutionNs) / 1e9;
    return { p50Seconds: seconds(histogram.percentile(50)), p99Seconds: seconds(histogram.percentile(99)), maxSeconds: seconds(histogram.max) };
  }

  stop(): void {
    this.stopTimer();
    for (const histogram of this.monitors) histogram.disable();
  }

  private rotate(): void {
    this.monitors[this.older].reset();
    this.older = this.older === 0 ? 1 : 0;
  }
}

let processWindow: EventLoopDelayWindow | undefined;

/** The process's one window (one event loop, however many apps a test process builds); started at the first call, never stopped. */
export function processEventLoopDelay(): EventLoopDelayWindow {
  processWindow ??= new EventLoopDelayWindow();
  return processWindow;
}
