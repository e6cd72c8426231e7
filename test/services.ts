import { z } from 'zod';
import { ACCOUNT_DEV_SECRETS, AccountConfigSchema } from '../services/account/src/config.js';
import { EXECUTION_DEV_SECRETS, ExecutionConfigSchema } from '../services/execution/src/config.js';
import { MARKET_DATA_DEV_SECRETS, MarketDataConfigSchema } from '../services/market-data/src/config.js';
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

/** The development keys of the services that require one, by the service's name in the stack table. */
export const DEV_SECRETS: Record<string, Record<string, string> | undefined> = {
  execution: EXECUTION_DEV_SECRETS,
  account: ACCOUNT_DEV_SECRETS,
  'market-data': MARKET_DATA_DEV_SECRETS,
};

export function settingNames(name: string): string[] {
  return Object.keys((CONFIG_SCHEMAS[name] as z.ZodObject).shape);
}
