import { afterEach } from 'vitest';

/** Opens a store on one database; each call is another connection (a replica) to the same data. */
export type OpenOnDatabase<A extends unknown[], S> = (...args: A) => Promise<S>;

/**
 * For a store contract suite, called inside its `describe`: `database()` gives a fresh database
 * from the harness, and every store opened on it is closed after the test.
 */
export function storesClosedAfterEach<A extends unknown[], S extends { close(): Promise<void> }>(
  harnessDatabase: () => Promise<OpenOnDatabase<A, S>>,
): () => Promise<OpenOnDatabase<A, S>> {
  const opened: S[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  return async () => {
    const open = await harnessDatabase();
    return async (...args) => {
      const store = await open(...args);
      opened.push(store);
      return store;
    };
  };
}
