import { ServiceError, StrategyClient, strategyCalls } from '@fxdesk/client';
import { expectClientMatchesDocument } from '@fxdesk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from './helpers.js';

/** @fxdesk/client's StrategyClient against the real app over HTTP, as a user's bot would call it. */
describe('StrategyClient', () => {
  let h: Harness;
  let client: StrategyClient;
  beforeAll(async () => {
    h = await harness({ env: { RATE_LIMIT_POST_PER_MINUTE: '4' } });
    client = new StrategyClient({ baseUrl: await h.app.listen({ host: '127.0.0.1', port: 0 }) });
  });
  afterAll(async () => {
    await client.close();
    await h.close();
  });

  it('checks each answer with the schema the OpenAPI document names for it', async () => {
    await expectClientMatchesDocument(h.app, strategyCalls);
  });

  it('starts, reads and stops the strategy with typed answers', async () => {
    expect((await client.health()).status).toBe('healthy');
    const started = await client.start({ instruments: ['EUR_USD'], dry_run: true });
    expect(started).toMatchObject({ success: true, instruments: ['EUR_USD'], dry_run: true });
    await h.settle();
    expect((await client.status()).running).toBe(true);
    expect((await client.pairs())[0]).toMatchObject({ instrument: 'EUR_USD', status: 'monitoring' });
    expect((await client.pairCandles('EUR_USD', 2)).candles).toHaveLength(2);
    expect(await client.latestSignal('EUR_USD')).toMatchObject({ instrument: 'EUR_USD' });
    expect((await client.signals({ limit: 5 })).signals.length).toBeLessThanOrEqual(5);
    expect((await client.stop()).success).toBe(true);
  });

  it('reads the desk’s risk and answers a resume of an account not halted with NOT_HALTED', async () => {
    expect((await client.risk()).accounts.map((a) => [a.account, a.halted])).toEqual([
      ['live', false],
      ['paper', false],
    ]);
    expect(await client.resumeRisk('paper').catch((err: unknown) => err)).toMatchObject({ status: 409, code: 'NOT_HALTED' });
  });

  it('throws ServiceError with the spec code and, when throttled, the Retry-After seconds', async () => {
    const conflict = await client.stop().catch((err: unknown) => err);
    expect(conflict).toBeInstanceOf(ServiceError);
    expect(conflict).toMatchObject({ status: 409, code: 'STRATEGY_NOT_RUNNING' });
    const missing = await client.latestSignal('ABC_XYZ').catch((err: unknown) => err);
    expect(missing).toMatchObject({ status: 404, code: 'INSTRUMENT_NOT_FOUND' });
    let throttled: unknown;
    for (let i = 0; i < 5 && !throttled; i++)
      throttled = await client.restart().then(
        () => undefined,
        (err: unknown) => ((err as ServiceError).status === 429 ? err : undefined),
      );
    expect(throttled).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect((throttled as ServiceError).retryAfterSeconds).toBeGreaterThan(0);
  });
});
