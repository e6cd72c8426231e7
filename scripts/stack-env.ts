import { roleBroker, type VenueRole } from '@fxdesk/core';
import { stackService, type StackService } from './stack.js';

export type Env = Record<string, string | undefined>;

/**
 * Stack-level keys: one name per service key, so a single .env (or shell) configures both the
 * service that checks a key and the strategy service that calls it.
 */
export const STACK_KEYS = {
  EXECUTION_API_KEY: 'dev-execution-key',
  MARKET_DATA_API_KEY: 'dev-market-data-key',
  INTERNAL_API_KEY: 'dev-account-key',
  NOTIFICATION_API_KEY: 'dev-notification-key',
} as const;

/** The lines that show the development keys in use (none: no line). */
export function describeDevKeys(names: Set<string>): string {
  if (names.size === 0) return '';
  const shown = [...names].map((k) => `  ${k}=${STACK_KEYS[k as keyof typeof STACK_KEYS]}`).join('\n');
  return `development keys in use (set them in .env before exposing the desk):\n${shown}\n`;
}

/** The port of a service in the stack: its `<SERVICE>_PORT` override, else the table's. */
export function stackPortOf(service: StackService, base: Env): number {
  const override = base[`${envPrefix(service)}_PORT`];
  return override && /^\d+$/.test(override) ? Number(override) : service.stackPort;
}

function url(name: StackService['name'], base: Env): string {
  return `http://127.0.0.1:${stackPortOf(stackService(name), base)}`;
}

/**
 * The environment each service gets in the stack: the shared base (.env and the shell), its
 * stack port, its own key under the name its config reads, and the strategy's downstream URLs.
 * Development keys fill what is unset outside production; in production the services refuse
 * to start without them.
 */
/** The chat the stack's announcements go to when no recipient is configured (sandbox transport). */
export const SANDBOX_CHAT = '@fxdesk_sandbox';
const RECIPIENT_SETTINGS = ['CHAT_APP_CHAT_IDS', 'EMAIL_TO', 'SMS_TO', 'MESSENGER_APP_TO'];

export function serviceEnv(service: StackService, base: Env): { env: Env; devKeys: string[]; notes: string[] } {
  const isProduction = base.NODE_ENV === 'production';
  const devKeys: string[] = [];
  const notes: string[] = [];
  const key = (name: keyof typeof STACK_KEYS): string | undefined => {
    if (base[name]) return base[name];
    if (isProduction) return undefined;
    devKeys.push(name);
    return STACK_KEYS[name];
  };
  const env: Env = { ...base, PORT: String(stackPortOf(service, base)) };
  switch (service.name) {
    case 'execution':
      env.API_KEY = key('EXECUTION_API_KEY');
      env.BROKER = brokerOf(service, base);
      // The embedded simulated terminal trades play money: the stack trades out of the box.
      if (env.TRADING_ENABLED === undefined && env.BROKER === 'simulated') env.TRADING_ENABLED = 'true';
      break;
    case 'market-data':
      env.API_KEY = key('MARKET_DATA_API_KEY');
      env.BROKER = brokerOf(service, base);
      break;
    case 'account':
      env.INTERNAL_API_KEY = key('INTERNAL_API_KEY');
      env.BROKER = brokerOf(service, base);
      // The simulated venue is one account: the account service reads the one the execution service trades.
      if (env.BROKER === 'simulated') {
        env.EXECUTION_URL ??= url('execution', base);
        env.EXECUTION_API_KEY = key('EXECUTION_API_KEY');
      }
      break;
    case 'notification':
      env.NOTIFICATION_API_KEY = key('NOTIFICATION_API_KEY');
      // With no recipient anywhere the desk's announcements would reach no one; outside
      // production they go to a sandbox chat (no bot token: recorded, never sent) to be read
      // at GET /notifications.
      if (!isProduction && !base.CHAT_APP_BOT_TOKEN && RECIPIENT_SETTINGS.every((n) => !base[n])) {
        env.CHAT_APP_CHAT_IDS = SANDBOX_CHAT;
        notes.push(`announcements go to the sandbox chat ${SANDBOX_CHAT} (see GET /notifications); set CHAT_APP_CHAT_IDS and friends to reach people`);
      }
      break;
    case 'strategy':
      env.EXECUTION_URL ??= url('execution', base);
      env.EXECUTION_API_KEY = key('EXECUTION_API_KEY');
      env.MARKET_DATA_URL ??= url('market-data', base);
      env.MARKET_DATA_API_KEY = key('MARKET_DATA_API_KEY');
      env.ACCOUNT_URL ??= url('account', base);
      env.ACCOUNT_API_KEY = key('INTERNAL_API_KEY');
      env.NOTIFICATION_URL ??= url('notification', base);
      env.NOTIFICATION_API_KEY = key('NOTIFICATION_API_KEY');
      // Outside production, on the play-money terminal, a fresh desk trades out of the box. What
      // the strategy really does (a desk stopped before stays stopped) the launcher reads from its /status.
      if (!isProduction && env.AUTO_START === undefined && brokerOf(stackService('execution'), base) === 'simulated') env.AUTO_START = 'true';
      break;
  }
  return { env, devKeys, notes };
}

/**
 * The broker of a service in the stack (@fxdesk/core's venues.ts): `VENUE` sets the three roles
 * at once; `EXECUTION_BROKER`, `ACCOUNT_BROKER` and `MARKET_DATA_BROKER` override one each; each
 * is `simulated` by default. A bare `BROKER` applies only to a service run alone.
 */
export function brokerOf(service: StackService, base: Env): string {
  return roleBroker(service.name as VenueRole, base);
}

/** `market-data` → `MARKET_DATA`, for per-service overrides like `MARKET_DATA_PORT`. */
export function envPrefix(service: StackService): string {
  return service.name.toUpperCase().replace(/-/g, '_');
}
