import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@fxdesk/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createDeps, type StrategyDeps } from '../src/deps.js';
import { testConfig } from './helpers.js';

const closing: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** A market-data service whose page of history answers only after `delayMs` (a busy machine). */
async function slowMarketData(delayMs: number): Promise<string> {
  const server = http.createServer((req, res) => {
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ symbol: 'EURUSD', timeframe: 'M5', candles: [], next_from: null }));
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closing.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the lab reading its history from the market-data service', () => {
  it('waits for a page longer than a live call does (DOWNSTREAM_TIMEOUT_MS), so a busy machine does not fail the job', async () => {
    const url = await slowMarketData(600);
    const config = testConfig({ DATA_DIR: ':memory:', MARKET_DATA_URL: url, MARKET_DATA_API_KEY: 'md-key-123', DOWNSTREAM_TIMEOUT_MS: '200' });
    const deps: StrategyDeps = await createDeps(config, createLogger({ name: 'strategy', level: 'silent' }));
    closing.push(deps.close);
    const fromSec = Date.UTC(2025, 0, 6) / 1000;
    await expect(deps.lab.history.candles('EURUSD', 'M5', fromSec, fromSec + 3600)).resolves.toEqual([]);
  }, 30_000);
});
