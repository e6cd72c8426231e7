import { z } from 'zod';
import { AccountConfigSchema } from '../services/account/src/config.js';
import { ExecutionConfigSchema } from '../services/execution/src/config.js';
import { MarketDataConfigSchema } from '../services/market-data/src/config.js';
import { NotificationConfigSchema } from '../services/notification/src/config.js';
import { StrategyConfigSchema } from '../services/strategy/src/config.js';

/** Each service's config schema, by the service's name in the stack table. */
export const CONFIG_SCHEMAS: Record<string, z.ZodObject> = {
  strategy: StrategyConfigSchema,
  execution: ExecutionConfigSchema,
  account: AccountConfigSchema,
  'market-data': MarketDataConfigSchema,
  notification: NotificationConfigSchema,
};

export function settingNames(name: string): string[] {
  return Object.keys((CONFIG_SCHEMAS[name] as z.ZodObject).shape);
}
