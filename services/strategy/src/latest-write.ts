/**
 * A write of a value that changes faster than a store takes it (a lab job's progress, a
 * service's health): one write at a time, and of the values asked meanwhile only the newest goes
 * next, so what is stored never goes back to an older value. A failed write goes to `onError`;
 * `pending` holds the writes on their way, for a shutdown to wait for.
 */
export function latestWrite<T>(
  write: (value: T) => Promise<void>,
  options: { onError: (err: unknown) => void; pending?: Set<Promise<void>> },
): (value: T) => void {
  let next: { value: T } | undefined;
  let isWriting = false;
  const flush = (): void => {
    if (isWriting || next === undefined) return;
    const { value } = next;
    next = undefined;
    isWriting = true;
    const writing: Promise<void> = write(value)
      .catch(options.onError)
      .finally(() => {
        options.pending?.delete(writing);
        isWriting = false;
        flush();
      });
    options.pending?.add(writing);
  };
  return (value) => {
    next = { value };
    flush();
  };
}
