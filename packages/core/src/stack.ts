/**
 * The desk as one stack: each service's folder, its port when it runs alone and in the stack,
 * and the development values of the keys it requires. The launcher (scripts/start.ts),
 * docker-compose.yml and each server.ts read this one table.
 */
export interface StackService {
  name: 'strategy' | 'execution' | 'account' | 'market-data' | 'notification';
  /** Port when the service runs alone (its spec's default). */
  defaultPort: number;
  /** Port in the stack (`npm start`, docker compose). */
  stackPort: number;
  /** Settings that take a printed development value outside production. */
  devSecrets: Record<string, string>;
}

export const STACK: readonly StackService[] = [
  { name: 'strategy', defaultPort: 8000, stackPort: 8000, devSecrets: {} },
  { name: 'execution', defaultPort: 8000, stackPort: 8001, devSecrets: { API_KEY: 'dev-execution-key' } },
  { name: 'account', defaultPort: 3000, stackPort: 3000, devSecrets: { INTERNAL_API_KEY: 'dev-account-key' } },
  { name: 'market-data', defaultPort: 8010, stackPort: 8010, devSecrets: { API_KEY: 'dev-market-data-key' } },
  { name: 'notification', defaultPort: 3010, stackPort: 3010, devSecrets: {} },
];

export function stackService(name: StackService['name']): StackService {
  const found = STACK.find((s) => s.name === name);
  if (!found) throw new Error(`unknown service ${name}`);
  return found;
}
