/**
 * The fake cTrader server's catalog: a few symbols as a broker lists them, with the FX week
 * as their schedule (Sunday 22:00 to Friday 22:00 UTC, in seconds from Sunday 00:00).
 */
export interface FakeSymbol {
  symbolId: number;
  symbolName: string;
  enabled: boolean;
  description: string;
  digits: number;
  pipPosition: number;
  /** Mid price in 1/100000 units, and the spread in the same units. */
  basePrice: number;
  spread: number;
  scheduleTimeZone: string;
  schedule: { startSecond: number; endSecond: number }[];
  holiday?: {
    holidayId: number;
    name: string;
    scheduleTimeZone: string;
    holidayDate: number;
    isRecurring: boolean;
    startSecond?: number;
    endSecond?: number;
  }[];
  /** Epoch ms of the first bar the server keeps (default: no limit). */
  historyStartMs?: number;
  /** One lot in cents of units (ProtoOASymbol.lotSize); default 10 000 000, an FX lot of 100 000 units. */
  lotSize?: number;
  /** Minimum distance of a stop loss / take profit from the market, in points. */
  slDistance?: number;
  tpDistance?: number;
}

const DAY = 86_400;
export const FX_WEEK = [{ startSecond: 22 * 3600, endSecond: 5 * DAY + 22 * 3600 }];

export const FAKE_SYMBOLS: FakeSymbol[] = [
  {
    symbolId: 1,
    symbolName: 'EURUSD',
    enabled: true,
    description: 'Euro vs US Dollar',
    digits: 5,
    pipPosition: 4,
    basePrice: 108_150,
    spread: 12,
    scheduleTimeZone: 'UTC',
    schedule: FX_WEEK,
    slDistance: 10,
    tpDistance: 10,
  },
  {
    symbolId: 2,
    symbolName: 'GBPUSD',
    enabled: true,
    description: 'British Pound vs US Dollar',
    digits: 5,
    pipPosition: 4,
    basePrice: 126_420,
    spread: 15,
    scheduleTimeZone: 'UTC',
    schedule: FX_WEEK,
  },
  {
    symbolId: 4,
    symbolName: 'USDJPY',
    enabled: true,
    description: 'US Dollar vs Japanese Yen',
    digits: 3,
    pipPosition: 2,
    basePrice: 15_712_300,
    spread: 1_200,
    scheduleTimeZone: 'UTC',
    schedule: FX_WEEK,
  },
  {
    symbolId: 41,
    symbolName: 'XAUUSD',
    enabled: true,
    description: 'Gold vs US Dollar',
    digits: 2,
    pipPosition: 1,
    basePrice: 265_012_000,
    spread: 30_000,
    scheduleTimeZone: 'UTC',
    schedule: FX_WEEK,
    historyStartMs: Date.UTC(2026, 0, 6, 12),
    lotSize: 10_000,
  },
  {
    symbolId: 77,
    symbolName: 'USDTRY',
    enabled: false,
    description: 'US Dollar vs Turkish Lira',
    digits: 5,
    pipPosition: 4,
    basePrice: 3_512_000,
    spread: 2_000,
    scheduleTimeZone: 'UTC',
    schedule: FX_WEEK,
  },
];
