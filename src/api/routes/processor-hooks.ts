import express, { type Request, type Response } from 'express';
import { receivePush } from '../../features/mirroring/push.js';
import type { AppDeps } from '../endpoint.js';

/** The largest push accepted: Adyen batches notifications, and a dispute's news fits well within this. */
export const pushBodyLimit = '1mb';

/**
 * POST /processor-hooks/:processor/:account: a processor's own webhook (features/mirroring/push.ts). No
 * API key: the processor's signature over the exact bytes received is the credential, so the body is
 * read raw, whatever its type. `:account` is the connected account's uid, shown by `account list`.
 */
export function processorHook(
  deps: Pick<AppDeps, 'db' | 'adapters' | 'secrets' | 'refresher' | 'alertRefunds' | 'logger'>,
) {
  return async (req: Request, res: Response): Promise<void> => {
    const reply = await receivePush(deps, {
      processor: String(req.params.processor),
      accountUid: String(req.params.account),
      headers: req.headers,
      body: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
    });
    res.status(200).type(reply.contentType).send(reply.body);
  };
}

export const rawPushBody = express.raw({ type: () => true, limit: pushBodyLimit });
