import { errorPathSuite } from '@fxdesk/core/testing';
import { ManualClock } from '@fxdesk/primitives';
import { buildApp } from '../src/app.js';
import { FakeFeed } from './fake-feed.js';
import { testConfig } from './helpers.js';

errorPathSuite('market-data', {
  build: () => {
    const clock = new ManualClock();
    return buildApp({ config: testConfig({ BODY_LIMIT_BYTES: '4096' }), deps: { clock, feed: new FakeFeed(clock) } });
  },
  bodyLimitBytes: 4096,
});
