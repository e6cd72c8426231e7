/**
 * The desk as one stack: each service's folder and its port when it runs alone and in the
 * stack. The launcher (scripts/start.ts) and docker-compose.yml follow this one table; each
 * service's config.ts defaults to its port alone and names its own development keys.
 */
export interface StackService {
  name: 'strategy' | 'execution' | 'account' | 'market-data' | 'notification';
  /** Port when the service runs alone (its spec's default, as its config.ts sets it). */
  defaultPort: number;
  /** Port in the stack (`npm start`, docker compose). */
  stackPort: number;
}

export const STACK: readonly StackService[] = [
  { name: 'strategy', defaultPort: 8000, stackPort: 8000 },
  { name: 'execution', defaultPort: 8000, stackPort: 8001 },
  { name: 'account', defaultPort: 3000, stackPort: 3000 },
  { name: 'market-data', defaultPort: 8010, stackPort: 8010 },
  { name: 'notification', defaultPort: 3010, stackPort: 3010 },
];

export function stackService(name: StackService['name']): StackService {
  const found = STACK.find((s) => s.name === name);
  if (!found) throw new Error(`unknown service ${name}`);
  return found;
}
