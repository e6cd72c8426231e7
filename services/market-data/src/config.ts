import { z } from 'zod';
import { commonSettings, envInt, stackService } from '@fxdesk/core';
/** Every setting of the market-data service; `.env.example` documents each one. */
export const MarketDataConfigSchema = z.object({
  ...commonSettings(stackService('market-data').defaultPort),
  API_KEY: z.string().min(8, { message: 'must be at least 8 characters' }),
  TICK_STALENESS_SECONDS: envInt(30, { min: 1 }),
});

export type MarketDataConfig = z.output<typeof MarketDataConfigSchema>;
