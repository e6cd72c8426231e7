import type { ManualClock } from '@fxdesk/primitives';

/** Turns of the event loop until `busy()` is false, then one more so the answer's callbacks have run. */
async function quiet(busy: () => boolean): Promise<void> {
  do await new Promise((resolve) => setImmediate(resolve));
  while (busy());
  await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Moves `clock` in steps of `stepMs` until `work` settles, and answers it. Each step waits until
 * no request of the adapter is on the wire (`busy()` false), so every request reaches the fake at
 * the clock time it was sent: what the adapter paced is what the fake's window counts.
 */
export async function driveClock<T>(clock: ManualClock, work: Promise<T>, busy: () => boolean, stepMs: number): Promise<T> {
  let settled = false;
  const done = work.finally(() => {
    settled = true;
  });
  done.catch(() => undefined);
  for (;;) {
    await quiet(busy);
    if (settled) return done;
    clock.advance(stepMs);
  }
}
