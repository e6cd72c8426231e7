/**
 * The broker's test doubles other workspaces test against: local servers that behave as each
 * venue documents, the contract a simulated-terminal store must keep, and the count of V8 hidden
 * classes its tests hold kept objects to. They live beside the broker's own tests; this is their
 * one public door (`@fxdesk/broker/testing`).
 */
export { FAKE_CREDENTIALS, FAKE_REFRESH_TOKEN, FakeCTraderServer } from '../test/ctrader/fake-ctrader-server.js';
export { FAKE_SYMBOLS as FAKE_CTRADER_SYMBOLS } from '../test/ctrader/fake-symbols.js';
export { FakeMetaApiServer } from '../test/metaapi/fake-metaapi-server.js';
export { hiddenClassCount } from '../test/hidden-classes.js';
export { FakeV20Server } from '../test/oanda/fake-v20-server.js';
export { simulatedTerminalStoreContract } from '../test/contract/simulated-terminal-store.js';
export { fakeCTraderSettings, fakeMetaApiSettings, fakeOandaSettings, UNREACHABLE_VENUE_SETTINGS } from './venue-settings.js';
