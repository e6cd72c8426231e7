import { createHash } from 'node:crypto';
import type { Timeframe } from '@fxdesk/schemas';

/** Namespace of fxdesk strategy signal ids (a fixed random UUID; never change it). */
export const SIGNAL_ID_NAMESPACE = '5b0f6f0e-8f1c-4c8e-9a57-2d3c6b1f7e42';

function uuidBytes(uuid: string): Buffer {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex');
}

/**
 * A name-based UUID, version 5 (SHA-1), as RFC 9562 §5.5 defines it: the first 16 bytes of
 * SHA-1(namespace ‖ name), with the version nibble set to 5 and the variant bits to 10.
 */
export function uuidV5(name: string, namespace: string): string {
  const hash = createHash('sha1').update(uuidBytes(namespace)).update(name, 'utf8').digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The id of the signal a pair gives on one closed candle: the same (instrument, timeframe,
 * candle open time) always gives the same id, in any process, so a retry or a restart can never
 * make the execution service trade it twice, nor the notification service announce it twice.
 */
export function signalIdFor(instrument: string, timeframe: Timeframe, candleOpenEpochSeconds: number): string {
  return uuidV5(`${instrument}|${timeframe}|${candleOpenEpochSeconds}`, SIGNAL_ID_NAMESPACE);
}
