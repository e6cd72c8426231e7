import { describe, expect, it } from 'vitest';
import { errorFromWire } from '../../src/ctrader/error-mapping.js';

describe('cTrader error responses', () => {
  it('maps authorization, throttling, maintenance and unknown codes to broker error kinds', () => {
    expect(errorFromWire({ errorCode: 'CH_ACCESS_TOKEN_INVALID' }, 0).kind).toBe('unauthorized');
    expect(errorFromWire({ errorCode: 'SYMBOL_NOT_FOUND' }, 0).kind).toBe('not_found');
    expect(errorFromWire({ errorCode: 'SERVER_IS_UNDER_MAINTENANCE' }, 0).kind).toBe('unavailable');
    expect(errorFromWire({ errorCode: 'INCORRECT_BOUNDARIES', description: 'Incorrect boundaries' }, 0)).toMatchObject({
      kind: 'rejected',
      venueCode: 'INCORRECT_BOUNDARIES',
      message: 'cTrader INCORRECT_BOUNDARIES: Incorrect boundaries',
    });
  });

  it('carries the wait a blocked payload type or a maintenance asks for', () => {
    expect(errorFromWire({ errorCode: 'BLOCKED_PAYLOAD_TYPE', retryAfter: 7 }, 0)).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 7 });
    expect(errorFromWire({ errorCode: 'SERVER_IS_UNDER_MAINTENANCE', maintenanceEndTimestamp: 1_000_120 }, 1_000_000_000).retryAfterSeconds).toBe(120);
  });
});
