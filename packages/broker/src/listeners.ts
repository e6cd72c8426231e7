import type { Unsubscribe } from './types.js';

/**
 * The listeners of one kind of event, behind an adapter's `on…` method. `emit` calls the
 * listeners added before it started, in the order they were added: one that adds or removes a
 * listener while it runs changes the next emit, not this one.
 */
export class Listeners<T> {
  private readonly set = new Set<(value: T) => void>();

  /** `copy` gives each listener its own copy of the value, so none sees what another changed. */
  constructor(private readonly copy?: (value: T) => T) {}

  add(listener: (value: T) => void): Unsubscribe {
    this.set.add(listener);
    return () => {
      this.set.delete(listener);
    };
  }

  emit(value: T): void {
    for (const listener of [...this.set]) listener(this.copy ? this.copy(value) : value);
  }
}
