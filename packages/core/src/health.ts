import { z } from 'zod';
import type { App } from './service.js';

export interface CheckResult {
  ok: boolean;
  detail?: string;
}

export type HealthCheck = () => CheckResult | Promise<CheckResult>;

const CheckResultSchema = z.object({ ok: z.boolean(), detail: z.string().optional() });

export const ReadinessSchema = z
  .object({
    status: z.enum(['ready', 'not_ready']),
    checks: z.record(z.string(), CheckResultSchema),
  })
  .meta({ id: 'Readiness' });

export const LivenessSchema = z.object({
  status: z.literal('live'),
  uptimeSeconds: z.number().int(),
  version: z.string(),
});

async function runCheck(check: HealthCheck, timeoutMs: number): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      Promise.resolve().then(check),
      new Promise<CheckResult>((resolve) => {
        timer = setTimeout(() => resolve({ ok: false, detail: `no answer within ${timeoutMs} ms` }), timeoutMs);
      }),
    ]);
  } catch (err) {
    return { ok: false, detail: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

/** Runs every named check; ready only when all pass. */
export async function runChecks(checks: Record<string, HealthCheck>, timeoutMs = 2000): Promise<{ ready: boolean; checks: Record<string, CheckResult> }> {
  const names = Object.keys(checks);
  const results = await Promise.all(names.map((n) => runCheck(checks[n] as HealthCheck, timeoutMs)));
  const out: Record<string, CheckResult> = {};
  names.forEach((n, i) => (out[n] = results[i] as CheckResult));
  return { ready: results.every((r) => r.ok), checks: out };
}

export interface HealthOptions {
  version: string;
  checks: Record<string, HealthCheck>;
  startedAt?: number;
  now?: () => number;
  timeoutMs?: number;
}

/** `GET /health/live` (the process answers) and `GET /health/ready` (every check passes, else 503). */
export function registerHealthRoutes(app: App, options: HealthOptions): void {
  const now = options.now ?? Date.now;
  const startedAt = options.startedAt ?? now();
  app.get(
    '/health/live',
    {
      schema: { tags: ['health'], summary: 'The process is running', response: { 200: LivenessSchema } },
      config: { rateLimit: false },
    },
    async () => ({ status: 'live' as const, uptimeSeconds: Math.floor((now() - startedAt) / 1000), version: options.version }),
  );
  app.get(
    '/health/ready',
    {
      schema: {
        tags: ['health'],
        summary: 'Every dependency is ready (else 503 naming the failing check)',
        response: { 200: ReadinessSchema, 503: ReadinessSchema },
      },
      config: { rateLimit: false },
    },
    async (_request, reply) => {
      const result = await runChecks(options.checks, options.timeoutMs);
      return reply.status(result.ready ? 200 : 503).send({ status: result.ready ? ('ready' as const) : ('not_ready' as const), checks: result.checks });
    },
  );
}
