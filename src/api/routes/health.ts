import type { Request, Response } from 'express';
import type { Logger } from '../../logger.js';
import type { Check } from '../../readiness.js';
import type { AppDeps } from '../endpoint.js';
import { reportedElsewhere } from '../middleware/request-log.js';

/**
 * GET /healthz and GET /readyz, for load balancers and orchestrators: no API key, and answered on the
 * plain listener too (they say nothing but up or not). Their bodies are JSON like every answer here.
 */

export function healthz(_req: Request, res: Response): void {
  res.status(200).json({ status: 'ok' });
}

export function readyz(deps: Pick<AppDeps, 'readiness' | 'logger'>) {
  const changes = readinessChanges(deps.logger);
  return async (_req: Request, res: Response): Promise<void> => {
    res.setHeader('Cache-Control', 'no-store');
    // At once, asking nothing: the balancer is to stop sending requests before this process stops
    // accepting them (docs/operations.md "Rolling restart"), whatever its dependencies say.
    if (deps.readiness.draining) {
      reportedElsewhere(res);
      res.status(503).json({ status: 'draining' });
      return;
    }
    const { ready, checks } = await deps.readiness.check();
    const shown = (check: Check) => (check.ok ? 'ok' : check.problem);
    const answer = { postgres: shown(checks.postgres), redis: shown(checks.redis) };
    changes.saw(answer);
    // A dependency being away is not this process failing, and the change was logged once, above.
    if (!ready) reportedElsewhere(res);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', checks: answer });
  };
}

/**
 * One line per change of readiness, not one per probe: a load balancer probes every few seconds, and an
 * outage of minutes would otherwise write a line each time. A dependency away is a warning (the process
 * is fine, and the load balancer routes around it); its return, info.
 */
function readinessChanges(logger: Logger) {
  let last = JSON.stringify({ postgres: 'ok', redis: 'ok' });
  return {
    saw(checks: { postgres: string; redis: string }) {
      const now = JSON.stringify(checks);
      if (now === last) return;
      last = now;
      if (checks.postgres === 'ok' && checks.redis === 'ok') logger.info({ checks }, 'ready again');
      else logger.warn({ checks }, 'not ready: a dependency is unavailable');
    },
  };
}
