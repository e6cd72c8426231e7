import type { Database } from '@fxdesk/core';
import type { DownstreamService, DownstreamState } from '@fxdesk/schemas';

/** The leader's view of each downstream service it calls, one JSON row a service, for the followers' status. */
export class DownstreamStateStore {
  constructor(private readonly db: Database) {}

  async saveDownstream(service: DownstreamService, state: DownstreamState): Promise<void> {
    await this.db.run(
      'INSERT INTO strategy_downstream_states (service, state) VALUES (@service, @state) ON CONFLICT (service) DO UPDATE SET state = excluded.state',
      { service, state: JSON.stringify(state) },
    );
  }

  async downstreamStates(): Promise<Partial<Record<DownstreamService, DownstreamState>>> {
    const rows = await this.db.query<{ service: DownstreamService; state: string }>('SELECT service, state FROM strategy_downstream_states');
    return Object.fromEntries(rows.map((row) => [row.service, JSON.parse(row.state) as DownstreamState]));
  }
}
