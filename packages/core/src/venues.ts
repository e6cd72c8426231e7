/**
 * The desk's venue (issue 25, README "Trading your own account"): one setting, `VENUE`, picks the
 * broker of all three roles at once (execution trades it, market data prices from it, the account
 * service reads it); `EXECUTION_BROKER`, `MARKET_DATA_BROKER` and `ACCOUNT_BROKER` override one
 * role each, for the advanced. A desk whose real orders are decided on another source's prices,
 * or whose roles face different brokers, is refused unless `ALLOW_MIXED_VENUES=true`.
 */

export const VENUES = ['simulated', 'oanda', 'ctrader', 'metaapi'] as const;
export type Venue = (typeof VENUES)[number];

export const VENUE_ROLES = ['execution', 'market-data', 'account'] as const;
export type VenueRole = (typeof VENUE_ROLES)[number];

type Env = Readonly<Record<string, string | undefined>>;

/** The per-role override's name: `EXECUTION_BROKER`, `MARKET_DATA_BROKER`, `ACCOUNT_BROKER`. */
export function roleBrokerSetting(role: VenueRole): string {
  return `${role.toUpperCase().replace(/-/g, '_')}_BROKER`;
}

/** The broker of a role in the stack: its override, else `VENUE`, else `simulated` (an unknown name is kept, for the service to refuse). */
export function roleBroker(role: VenueRole, env: Env): string {
  return env[roleBrokerSetting(role)] || env.VENUE || 'simulated';
}

/** Each role's broker in the stack. */
export function stackVenues(env: Env): Record<VenueRole, string> {
  return { execution: roleBroker('execution', env), 'market-data': roleBroker('market-data', env), account: roleBroker('account', env) };
}

/**
 * Why the stack's venues must not run together, in one line; null when they may. Refused: a
 * `VENUE` that is no venue; real orders on simulated prices; two roles on different real
 * brokers; a real account read beside simulated orders (its positions are not the desk's). Each
 * of the last three runs with `ALLOW_MIXED_VENUES=true`.
 */
export function venueMixProblem(env: Env): string | null {
  if (env.VENUE && !(VENUES as readonly string[]).includes(env.VENUE)) {
    return `VENUE=${env.VENUE} is not a venue: choose ${VENUES.join(', ')}`;
  }
  if (env.ALLOW_MIXED_VENUES === 'true') return null;
  const venues = stackVenues(env);
  const named = (role: VenueRole) => `${roleBrokerSetting(role)}=${venues[role]}`;
  const real = VENUE_ROLES.filter((role) => venues[role] !== 'simulated');
  const allow = 'set VENUE alone to trade one account, or ALLOW_MIXED_VENUES=true if you mean it';
  if (venues.execution !== 'simulated' && venues['market-data'] === 'simulated') {
    return `refusing to start: ${named('execution')} sends real orders whose stops and targets come from simulated prices (${named('market-data')}); ${allow}`;
  }
  const other = real.find((role) => venues[role] !== venues[real[0]!]);
  if (other) return `refusing to start: ${named(real[0]!)} and ${named(other)} are different venues; ${allow}`;
  if (venues.account !== 'simulated' && venues.execution === 'simulated') {
    return `refusing to start: ${named('account')} reads a real account while the orders go to the simulated terminal (${named('execution')}); ${allow}`;
  }
  return null;
}
