import { describe, expect, it } from 'vitest';
import { errorFromWire } from '../../src/ctrader/error-mapping.js';
import { PayloadType } from '../../src/ctrader/wire.js';

const OA = PayloadType.OA_ERROR_RES;
const COMMON = PayloadType.ERROR_RES;

describe('cTrader error responses', () => {
  it('maps authorization, throttling, maintenance and unknown codes to broker error kinds', () => {
    expect(errorFromWire({ errorCode: 'CH_ACCESS_TOKEN_INVALID' }, OA, 0).kind).toBe('unauthorized');
    expect(errorFromWire({ errorCode: 'SYMBOL_NOT_FOUND' }, OA, 0).kind).toBe('not_found');
    expect(errorFromWire({ errorCode: 'SERVER_IS_UNDER_MAINTENANCE' }, OA, 0).kind).toBe('unavailable');
    expect(errorFromWire({ errorCode: 'INCORRECT_BOUNDARIES', description: 'Incorrect boundaries' }, OA, 0)).toMatchObject({
      kind: 'rejected',
      venueCode: 'INCORRECT_BOUNDARIES',
      message: 'cTrader INCORRECT_BOUNDARIES: Incorrect boundaries',
    });
  });

  it('carries the wait a blocked payload type asks for', () => {
    expect(errorFromWire({ errorCode: 'BLOCKED_PAYLOAD_TYPE', retryAfter: 7 }, OA, 0)).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 7 });
  });

  it("reads ProtoOAErrorRes's maintenance end in Unix seconds", () => {
    const error = errorFromWire({ errorCode: 'SERVER_IS_UNDER_MAINTENANCE', maintenanceEndTimestamp: 1_000_120 }, OA, 1_000_000_000);
    expect(error.retryAfterSeconds).toBe(120);
  });

  it("reads ProtoErrorRes's maintenance end in Unix milliseconds", () => {
    const error = errorFromWire({ errorCode: 'SERVER_IS_UNDER_MAINTENANCE', maintenanceEndTimestamp: 1_000_120_000 }, COMMON, 1_000_000_000);
    expect(error.retryAfterSeconds).toBe(120);
  });

  it('counts an ended maintenance as no wait', () => {
    expect(errorFromWire({ errorCode: 'SERVER_IS_UNDER_MAINTENANCE', maintenanceEndTimestamp: 999_000 }, OA, 1_000_000_000).retryAfterSeconds).toBe(0);
  });
});
