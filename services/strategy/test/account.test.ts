import { AccountClient } from '@fxdesk/client';
import { afterEach, describe, expect, it } from 'vitest';
import { envelope, fakeService, type FakeService } from './fake-service.js';
import { harness, type Harness } from './helpers.js';

const summary = (balance: string) => ({
  status: 200,
  body: {
    account: {
      id: '101-004-1435156-001',
      alias: null,
      currency: 'USD',
      balance,
      nav: '100250.5000',
      unrealizedPL: '250.5000',
      realizedPL: '0.0000',
      marginUsed: '3300.2500',
      marginAvailable: '96950.2500',
      marginRate: '0.0333',
      openTradeCount: 1,
      openPositionCount: 1,
      pendingOrderCount: 0,
      lastTransactionId: '6358',
      asOf: '2026-01-05T12:00:00.000Z',
    },
    snapshot: { id: 1, takenAt: '2026-01-05T12:00:00.000Z' },
  },
});

let service: FakeService;
let h: Harness;
let client: AccountClient;
afterEach(async () => {
  await h.close();
  await client.close();
  await service.close();
});

async function desk(answer: Parameters<typeof fakeService>[0], env: Record<string, string> = {}) {
  service = await fakeService(answer);
  client = new AccountClient({ baseUrl: service.url, apiKey: 'account-key-123', timeoutMs: 2000 });
  h = await harness({ env, deps: { account: client } });
}

const status = async () => (await h.app.inject({ url: '/status' })).json();

describe('status.account from the account service (ACCOUNT_URL)', () => {
  it('maps the summary decimal strings to numbers: balance, equity (the NAV), margin_used and margin_available', async () => {
    await desk(() => summary('100000.0000'));
    const body = await status();
    expect(body.account).toEqual({ balance: 100_000, equity: 100_250.5, margin_used: 3300.25, margin_available: 96_950.25 });
    expect(body.account_source).toBe('account_service');
    expect(service.requests[0]).toMatchObject({ method: 'GET', url: '/api/v1/account/summary', headers: { 'x-internal-api-key': 'account-key-123' } });
  });

  it('reuses an answer for ACCOUNT_REFRESH_SECONDS before asking again', async () => {
    await desk(() => summary('100000.0000'), { ACCOUNT_REFRESH_SECONDS: '5' });
    await status();
    await status();
    expect(service.requests).toHaveLength(1);
    await h.advance(5000);
    await status();
    expect(service.requests).toHaveLength(2);
  });

  it('keeps the last answer when the account service fails, and shows the failure in downstream.account', async () => {
    await desk(() => summary('99000.0000'), { ACCOUNT_REFRESH_SECONDS: '0' });
    await status();
    service.answer(() => ({ status: 502, body: envelope('broker_error', 'the broker refused the credentials') }));
    const body = await status();
    expect(body.account.balance).toBe(99_000);
    expect(body.downstream.account).toMatchObject({ configured: true, state: 'failing', last_error: { code: 'broker_error' }, consecutive_failures: 1 });
  });

  it('answers account null while the account service has never answered', async () => {
    await desk(() => ({ status: 503, body: envelope('broker_unavailable') }));
    expect((await status()).account).toBeNull();
  });
});
