import { describe, expect, it } from 'vitest';
import { drive, driveUntil, reach } from './drive.js';
import { startRig, type FeedRig } from './setup.js';

const MINUTE = 60_000;

/** Connects, then starts a maintenance ending `endsInMs` later, answered in `payloadType`; returns when it began. */
async function maintenanceRig(endsInMs: number, payloadType: 50 | 2142, feed = {}): Promise<{ rig: FeedRig; startedAt: number }> {
  const rig = await startRig({ feed });
  await rig.feed.connect();
  const startedAt = rig.clock.now();
  rig.fake.startMaintenance(startedAt + endsInMs, payloadType);
  await reach(rig.feed, 'disconnected');
  return { rig, startedAt };
}

/** Handshakes after the first connection, as offsets from `from`. */
const attemptsAfter = (rig: FeedRig, from: number) => rig.fake.handshakes.slice(1).map((at) => at - from);

describe('cTrader maintenance', () => {
  it('reads ProtoErrorRes in milliseconds and tries no session before the maintenance ends', async () => {
    const { rig, startedAt } = await maintenanceRig(10 * MINUTE, 50);
    await driveUntil(rig.clock, rig.feed, () => rig.feed.state() === 'connected', 15 * MINUTE);
    // One attempt after the usual first second meets the maintenance; the next one is at its end.
    expect(attemptsAfter(rig, startedAt)).toEqual([1000, 10 * MINUTE]);
    expect(rig.fake.errorsSent).toEqual(['SERVER_IS_UNDER_MAINTENANCE']);
  });

  it('reads ProtoOAErrorRes in seconds and tries no session before the maintenance ends', async () => {
    const { rig, startedAt } = await maintenanceRig(10 * MINUTE, 2142);
    await driveUntil(rig.clock, rig.feed, () => rig.feed.state() === 'connected', 15 * MINUTE);
    expect(attemptsAfter(rig, startedAt)).toEqual([1000, 10 * MINUTE]);
  });

  it('answers connect() during the wait with the maintenance, without a connection', async () => {
    const { rig } = await maintenanceRig(10 * MINUTE, 2142);
    await drive(rig.clock, rig.feed, 2000);
    const handshakes = rig.fake.handshakes.length;
    const err = await rig.feed.connect().catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'unavailable', venueCode: 'SERVER_IS_UNDER_MAINTENANCE', retryAfterSeconds: 599 });
    expect((err as Error).message).toMatch(/no session before 2026-01-07T12:10:00.000Z/);
    expect(rig.fake.handshakes).toHaveLength(handshakes);
  });

  it('waits at most venueWaitMaxMs for a maintenance announced to end far later', async () => {
    const { rig, startedAt } = await maintenanceRig(5 * 60 * MINUTE, 50, { venueWaitMaxMs: 20 * MINUTE });
    await drive(rig.clock, rig.feed, 25 * MINUTE);
    expect(attemptsAfter(rig, startedAt)).toEqual([1000, 1000 + 20 * MINUTE]);
  });
});
