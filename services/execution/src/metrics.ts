import type { MetricsRegistry } from '@fxdesk/core';
import type { ExecutionDeps } from './deps.js';

/** The store's group-commit batching (where its database groups commits: SQLite) and the terminal's connection and calls, in /metrics. */
export function registerExecutionMetrics(metrics: MetricsRegistry, { store, terminal, terminalCalls }: ExecutionDeps): void {
  const commits = store.commitStats;
  if (commits) {
    metrics.gauge('execution_store_commits', 'Group commits of the signal store since start.', () => commits.commits);
    metrics.gauge('execution_store_operations', 'Store operations committed since start (claims, outcomes, reads in a batch).', () => commits.operations);
  }
  metrics.gauge('execution_terminal_connected', '1 when the terminal is connected.', () => (terminal.isConnected() ? 1 : 0));
  if (terminalCalls) {
    metrics.gauge('execution_terminal_calls', 'Calls the terminal received since start, by method.', () =>
      Object.entries(terminalCalls()).map(([method, n]) => [{ method }, n]),
    );
  }
}
