import type { CheckResult } from '@fxdesk/core';
import type { RunState } from './store/index.js';

/** What the replica does as its role changes (strategy-control.ts). */
export interface LeadershipHandlers {
  /** This replica took the lead: it runs the engine from now on. */
  lead(): Promise<void>;
  /** This replica lost the lead (its claim on it failed) or is stopping: it decides nothing from now on. */
  follow(why: string): void;
  /** At every check, and at once when a replica records a change of the run: run what the store records. */
  sync(): Promise<void>;
}

/**
 * The election among the replicas of the strategy service on one database: at most one leads
 * (runs the engine: signals, their orders and announcements, paper trades) at a time, and when it
 * dies another takes over. A sole process (SQLite) has none: it always leads.
 */
export interface Leadership {
  /** This replica's name, in logs and readiness. */
  readonly replicaId: string;
  readonly isLeader: boolean;
  /** Takes part in the election until `stop`. */
  start(handlers: LeadershipHandlers): void;
  /** Tells every replica of a change of the run this one recorded, so each runs it at once rather than at its next check. */
  announce(run: RunState): void;
  /** The readiness check: this replica's role, and which replica leads. */
  check(): Promise<CheckResult>;
  /** Leaves the election, giving the lead up at once when held, so another replica need not wait. */
  stop(): Promise<void>;
}
