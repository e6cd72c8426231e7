import { z } from 'zod';
import { commonSettings, envInt, envList, stackService } from '@fxdesk/core';
import { TimeframeSchema } from '@fxdesk/schemas';

/** Every setting of the strategy service; `.env.example` documents each one. */
export const StrategyConfigSchema = z.object({
  ...commonSettings(stackService('strategy').defaultPort),
  INSTRUMENTS: envList(['EUR_USD', 'GBP_USD', 'USD_JPY', 'AUD_USD']),
  TIMEFRAME: TimeframeSchema.default('M5'),
  RATE_LIMIT_GET_PER_MINUTE: envInt(60, { min: 1 }),
  RATE_LIMIT_POST_PER_MINUTE: envInt(10, { min: 1 }),
  MARKET_DATA_URL: z.url().optional(),
  MARKET_DATA_API_KEY: z.string().min(1).optional(),
  EXECUTION_URL: z.url().optional(),
  EXECUTION_API_KEY: z.string().min(1).optional(),
  ACCOUNT_URL: z.url().optional(),
  ACCOUNT_API_KEY: z.string().min(1).optional(),
  NOTIFICATION_URL: z.url().optional(),
  NOTIFICATION_API_KEY: z.string().min(1).optional(),
});

export type StrategyConfig = z.output<typeof StrategyConfigSchema>;
