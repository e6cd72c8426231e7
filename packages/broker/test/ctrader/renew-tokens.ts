/**
 * One process of the account for tokens.process.test.ts: a feed on the fake at CTRADER_URL,
 * keeping its pairs in CTRADER_TOKEN_FILE. It prints `ready`, connects once a line arrives on
 * stdin (so that the test starts two at the same moment), then prints its token status.
 */
import { createInterface } from 'node:readline';
import { systemClock } from '@fxdesk/primitives';
import { CTraderFeed } from '../../src/ctrader/feed.js';
import { fileTokenStore } from '../../src/ctrader/token-store.js';
import { FAKE_CREDENTIALS, FAKE_REFRESH_TOKEN } from './fake-ctrader-server.js';

const feed = new CTraderFeed({
  ...FAKE_CREDENTIALS,
  refreshToken: FAKE_REFRESH_TOKEN,
  tokenStore: fileTokenStore(process.env.CTRADER_TOKEN_FILE ?? ''),
  url: process.env.CTRADER_URL ?? '',
  clock: systemClock,
});
const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
await new Promise((resolve) => lines.once('line', resolve));
lines.close();
await feed.connect();
process.stdout.write(`${JSON.stringify(feed.tokenStatus())}\n`);
await feed.close();
