import type { App } from '@fxdesk/core';
import { accountErrorResponses, AccountSnapshotsQuerySchema, AccountSnapshotsSchema } from '@fxdesk/schemas';
import type { AccountReads } from '../account-reads.js';

/** GET /snapshots: the persisted summary and details reads, newest first. */
export function registerSnapshotRoutes(app: App, reads: AccountReads): void {
  app.get(
    '/snapshots',
    {
      schema: {
        tags: ['account'],
        summary: 'Recent persisted account snapshots, newest first',
        querystring: AccountSnapshotsQuerySchema,
        response: { 200: AccountSnapshotsSchema, ...accountErrorResponses.storage, ...accountErrorResponses.badQuery },
      },
    },
    async (request) => ({ snapshots: await reads.snapshots(request.query.limit, request.query.kind) }),
  );
}
