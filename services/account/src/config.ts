import { z } from 'zod';
import { commonSettings, stackService } from '@fxdesk/core';
/** Every setting of the account service; `.env.example` documents each one. */
export const AccountConfigSchema = z.object({
  ...commonSettings(stackService('account').defaultPort),
  INTERNAL_API_KEY: z.string().min(8, { message: 'must be at least 8 characters' }),
});

export type AccountConfig = z.output<typeof AccountConfigSchema>;
