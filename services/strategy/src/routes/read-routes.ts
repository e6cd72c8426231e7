import { SCOPE_LIMITED } from '../rate-limits.js';

/** Where spec 000's reads are registered: at their own paths, or under '/console' as the console's copies. */
export interface ReadRouteOptions {
  prefix?: '' | '/console';
}

/**
 * The path prefix, rate-limit options and OpenAPI tags of a read route: spec 000's own count on
 * its scope's GET counter; the console's copies on the console's scope's read budget.
 */
export function readRouteOptions({ prefix = '' }: ReadRouteOptions, tag: string) {
  const isConsole = prefix === '/console';
  return { prefix, limits: isConsole ? {} : SCOPE_LIMITED, tags: [isConsole ? 'console' : tag] };
}
