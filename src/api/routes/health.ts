import type { Request, Response } from 'express';
import type { Check } from '../../services/readiness.js';
import type { AppDeps } from '../endpoint.js';

/**
 * GET /healthz and GET /readyz, for load balancers and orchestrators: no API key, and answered on the
 * plain listener too (they say nothing but up or not). Their bodies are JSON like every answer here.
 */

export function healthz(_req: Request, res: Response): void {
  res.status(200).json({ status: 'ok' });
}

export function readyz(deps: Pick<AppDeps, 'readiness'>) {
  return async (_req: Request, res: Response): Promise<void> => {
    const { ready, checks } = await deps.readiness.check();
    const shown = (check: Check) => (check.ok ? 'ok' : check.problem);
    res
      .status(ready ? 200 : 503)
      .setHeader('Cache-Control', 'no-store')
      .json({
        status: ready ? 'ready' : 'unavailable',
        checks: { postgres: shown(checks.postgres), redis: shown(checks.redis) },
      });
  };
}
