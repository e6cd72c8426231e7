import type * as broker from '@fxdesk/broker';
import type * as contract from '@fxdesk/schemas';
import { describe, expectTypeOf, it } from 'vitest';

// Checked by the type checker (npx tsc): the service answers what the broker adapters return,
// so its contract's records and @fxdesk/broker's interfaces must not drift apart.
describe("the contract's records", () => {
  it("are @fxdesk/broker's account records, field for field", () => {
    expectTypeOf<contract.AccountSummary>().toEqualTypeOf<broker.AccountSummary>();
    expectTypeOf<contract.AccountDetails>().toEqualTypeOf<broker.AccountDetails>();
    expectTypeOf<contract.AccountPosition>().toEqualTypeOf<broker.Position>();
    expectTypeOf<contract.AccountTrade>().toEqualTypeOf<broker.Trade>();
    expectTypeOf<contract.AccountPendingOrder>().toEqualTypeOf<broker.PendingOrder>();
    expectTypeOf<contract.AccountInstrument>().toEqualTypeOf<broker.Instrument>();
    expectTypeOf<contract.AccountTransaction>().toEqualTypeOf<broker.AccountTransaction>();
    expectTypeOf<contract.AccountChanges>().toEqualTypeOf<broker.AccountChanges>();
  });
});
