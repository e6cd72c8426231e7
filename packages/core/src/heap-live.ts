import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import v8 from 'node:v8';

/**
 * The V8 heap in use right after the latest full (mark-compact) collection: what the process
 * really holds. `heap_used` and RSS swing with the collector's phase (old space fills with
 * garbage until the next full collection), so a leak shows as this figure climbing, not theirs.
 * 0 before the first full collection.
 */
export function watchLiveHeap(): { bytes: () => number; stop: () => void } {
  let bytes = 0;
  const observer = new PerformanceObserver((list) => {
    const full = list
      .getEntries()
      .some((entry) => (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR);
    if (full) bytes = v8.getHeapStatistics().used_heap_size;
  });
  observer.observe({ entryTypes: ['gc'] });
  return { bytes: () => bytes, stop: () => observer.disconnect() };
}

let processWatch: { bytes: () => number } | undefined;

/** The process's one watch (every app of a process reads the same heap). */
export function processLiveHeapBytes(): number {
  processWatch ??= watchLiveHeap();
  return processWatch.bytes();
}
