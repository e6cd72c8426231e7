import type { Schema } from '@fxdesk/core';

/**
 * The candle store's tables, one list of migrations for SQLite (`DATA_DIR/market-data.db`) and
 * PostgreSQL (DATABASE_URL). A series is one (source, symbol, timeframe); its candles are keyed by
 * (series, time), so a candle is unique per (source, symbol, timeframe, time) and the key of
 * millions of rows is two integers, stored in key order on SQLite (WITHOUT ROWID). `time` is the
 * start of the bar, UTC epoch ms; prices are integers in millionths (exact to six decimals; a
 * third smaller than doubles, and faster to insert); `spread` in points, NULL when the source gave none.
 */
export const CANDLE_SCHEMA: Schema = {
  name: 'market-data',
  migrations: [
    ({ types: t, withoutRowid }) => `
    CREATE TABLE market_data_series (
      id ${t.serialKey},
      source ${t.key} NOT NULL,
      symbol ${t.key} NOT NULL,
      timeframe ${t.key} NOT NULL,
      UNIQUE (source, symbol, timeframe)
    );
    CREATE TABLE market_data_candles (
      series ${t.bigint} NOT NULL,
      time ${t.bigint} NOT NULL,
      open_micros ${t.bigint} NOT NULL,
      high_micros ${t.bigint} NOT NULL,
      low_micros ${t.bigint} NOT NULL,
      close_micros ${t.bigint} NOT NULL,
      volume ${t.real} NOT NULL,
      spread ${t.real},
      PRIMARY KEY (series, time)
    )${withoutRowid};
    `,
  ],
};
