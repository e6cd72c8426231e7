import { describe, expect, it } from 'vitest';
import { roleBroker, stackVenues, venueMixProblem } from '../src/venues.js';

describe('the desk’s venues', () => {
  it('takes each role’s broker from its own setting, else VENUE, else simulated', () => {
    expect(stackVenues({})).toEqual({ execution: 'simulated', 'market-data': 'simulated', account: 'simulated' });
    expect(stackVenues({ VENUE: 'oanda' })).toEqual({ execution: 'oanda', 'market-data': 'oanda', account: 'oanda' });
    expect(stackVenues({ VENUE: 'oanda', ACCOUNT_BROKER: 'simulated' })).toMatchObject({ execution: 'oanda', account: 'simulated' });
    expect(roleBroker('market-data', { MARKET_DATA_BROKER: 'ctrader', VENUE: 'oanda' })).toBe('ctrader');
    // An empty value counts as unset, as in .env.
    expect(roleBroker('execution', { EXECUTION_BROKER: '', VENUE: 'metaapi' })).toBe('metaapi');
  });

  it('lets one venue run every role, and the simulated desk with real prices', () => {
    for (const venue of ['simulated', 'oanda', 'ctrader', 'metaapi']) expect(venueMixProblem({ VENUE: venue })).toBeNull();
    expect(venueMixProblem({})).toBeNull();
    expect(venueMixProblem({ MARKET_DATA_BROKER: 'ctrader' })).toBeNull();
  });

  it('refuses real orders on simulated prices, in one line that says why and how to mean it', () => {
    const problem = venueMixProblem({ EXECUTION_BROKER: 'metaapi' });
    expect(problem).toBe(
      'refusing to start: EXECUTION_BROKER=metaapi sends real orders whose stops and targets come from simulated prices (MARKET_DATA_BROKER=simulated); set VENUE alone to trade one account, or ALLOW_MIXED_VENUES=true if you mean it',
    );
    expect(problem).not.toContain('\n');
    expect(venueMixProblem({ VENUE: 'oanda', MARKET_DATA_BROKER: 'simulated' })).toMatch(/EXECUTION_BROKER=oanda sends real orders/);
  });

  it('refuses roles on different real venues, and a real account read beside simulated orders', () => {
    expect(venueMixProblem({ EXECUTION_BROKER: 'metaapi', MARKET_DATA_BROKER: 'ctrader' })).toMatch(
      /^refusing to start: EXECUTION_BROKER=metaapi and MARKET_DATA_BROKER=ctrader are different venues/,
    );
    expect(venueMixProblem({ VENUE: 'oanda', ACCOUNT_BROKER: 'metaapi' })).toMatch(/EXECUTION_BROKER=oanda and ACCOUNT_BROKER=metaapi are different venues/);
    expect(venueMixProblem({ ACCOUNT_BROKER: 'oanda' })).toMatch(/ACCOUNT_BROKER=oanda reads a real account while the orders go to the simulated terminal/);
  });

  it('runs a mixed desk with ALLOW_MIXED_VENUES=true, never an unknown VENUE', () => {
    expect(venueMixProblem({ EXECUTION_BROKER: 'metaapi', ALLOW_MIXED_VENUES: 'true' })).toBeNull();
    expect(venueMixProblem({ EXECUTION_BROKER: 'metaapi', MARKET_DATA_BROKER: 'ctrader', ALLOW_MIXED_VENUES: 'true' })).toBeNull();
    expect(venueMixProblem({ VENUE: 'ib', ALLOW_MIXED_VENUES: 'true' })).toBe('VENUE=ib is not a venue: choose simulated, oanda, ctrader, metaapi');
  });
});
