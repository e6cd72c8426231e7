import { terminalDealOf, type HistoryRecord } from '../src/simulated/kept-objects.js';
import type {
  SavedAccount,
  SavedPosition,
  SavedRestingOrder,
  SavedTerminalState,
  SimulatedTerminalStore,
  TerminalStateChanges,
} from '../src/simulated/terminal-store.js';
import { isDealInFilter, type DealFilter, type TerminalDeal, type TerminalRecord } from '../src/terminal.js';

const byTicket = (a: { ticket: string }, b: { ticket: string }) => Number(a.ticket) - Number(b.ticket);
const bySeq = (a: { seq: number }, b: { seq: number }) => a.seq - b.seq;

/** A SimulatedTerminalStore in memory, for tests: a terminal built on it again reads what the last one saved. */
export class MemoryTerminalStore implements SimulatedTerminalStore {
  /** Saves still to fail, as a disk that is full would. */
  failures = 0;
  private account: SavedAccount | undefined;
  private readonly records = new Map<string, HistoryRecord>();
  private readonly positions = new Map<string, SavedPosition>();
  private readonly resting = new Map<string, SavedRestingOrder>();

  load(): SavedTerminalState | undefined {
    if (!this.account) return undefined;
    return structuredClone({
      ...this.account,
      positions: [...this.positions.values()].sort(bySeq),
      resting: [...this.resting.values()].sort(bySeq),
    });
  }

  async save(saved: TerminalStateChanges): Promise<void> {
    if (this.failures > 0) {
      this.failures--;
      throw new Error('disk full (injected)');
    }
    const changes = structuredClone(saved);
    this.account = changes.account;
    for (const record of changes.records) this.records.set(record.ticket, record);
    for (const { ticket } of this.latest(this.records.size).slice(changes.historyLimit)) this.records.delete(ticket);
    for (const position of changes.openedPositions) this.positions.set(position.ticket, position);
    for (const ticket of changes.closedPositions) this.positions.delete(ticket);
    for (const order of changes.restingOrders) this.resting.set(order.record.ticket, order);
    for (const ticket of changes.unrestedOrders) this.resting.delete(ticket);
  }

  findRecords(commentPrefix: string, magic: number, historyLimit: number): TerminalRecord[] {
    return structuredClone(this.latest(historyLimit).filter((r) => r.magic === magic && r.comment.startsWith(commentPrefix)));
  }

  findDeals(filter: DealFilter, historyLimit: number): TerminalDeal[] {
    return this.latest(historyLimit)
      .filter((r) => r.kind === 'deal' && isDealInFilter(filter, r))
      .map(terminalDealOf);
  }

  /** The latest `count` records, newest first. */
  private latest(count: number): HistoryRecord[] {
    return [...this.records.values()].sort((a, b) => byTicket(b, a)).slice(0, count);
  }
}
