import { z } from 'zod';
import { commonSettings, envBoolean, stackService } from '@fxdesk/core';
/** Every setting of the execution service; `.env.example` documents each one. */
export const ExecutionConfigSchema = z.object({
  ...commonSettings(stackService('execution').defaultPort, '127.0.0.1'),
  API_KEY: z.string().min(8, { message: 'must be at least 8 characters' }),
  TRADING_ENABLED: envBoolean(false),
});

export type ExecutionConfig = z.output<typeof ExecutionConfigSchema>;
