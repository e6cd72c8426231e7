import type { App } from '@fxdesk/core';
import { z } from 'zod';
import type { AccountReads } from '../account-reads.js';
import { SnapshotSchema } from '../schemas.js';
import { VALIDATION_RESPONSE } from './responses.js';

export const SNAPSHOT_LIMIT = { default: 50, max: 500 };

const SnapshotsQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(SNAPSHOT_LIMIT.max)
    .default(SNAPSHOT_LIMIT.default)
    .meta({ description: `Snapshots to return, newest first; default ${SNAPSHOT_LIMIT.default}, at most ${SNAPSHOT_LIMIT.max}` }),
  kind: z.enum(['summary', 'details']).optional().meta({ description: 'Only the snapshots of one endpoint' }),
});

const SnapshotsResponseSchema = z.object({ snapshots: z.array(SnapshotSchema) }).meta({ id: 'Snapshots' });

/** GET /snapshots: the persisted summary and details reads, newest first. */
export function registerSnapshotRoutes(app: App, reads: AccountReads): void {
  app.get(
    '/snapshots',
    {
      schema: {
        tags: ['account'],
        summary: 'Recent persisted account snapshots, newest first',
        querystring: SnapshotsQuerySchema,
        response: { 200: SnapshotsResponseSchema, ...VALIDATION_RESPONSE },
      },
    },
    async (request) => ({ snapshots: reads.snapshots(request.query.limit, request.query.kind) }),
  );
}
