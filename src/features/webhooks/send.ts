import { performance } from 'node:perf_hooks';
import { CancelError, got } from 'got';
import { filteringAgents, outboundFailure } from '../../outbound.js';

/** What one POST to a receiver came to. It never throws: the caller records every outcome. */
export interface SendResult {
  ok: boolean;
  /** The receiver's HTTP status; null when it did not answer. */
  status: number | null;
  /** Why it failed without an answer (timeout, refused connection, a private address). */
  error: string | null;
  durationMs: number;
}

export interface WebhookSender {
  send(url: string, headers: Record<string, string>, body: string): Promise<SendResult>;
  close(): void;
}

export interface SenderOptions {
  /** WEBHOOK_ALLOW_PRIVATE: allow loopback, private and link-local addresses, and plain http. */
  allowPrivate: boolean;
  /** No answer within this is a failure (docs/api.md, "Webhooks": 10 s). */
  timeoutMs?: number;
}

/** A receiver's body is not read past this: only its status counts, and it must not fill our memory. */
const maxAnswerBytes = 64 * 1024;

/**
 * POSTs webhooks with got: one try per call (BullMQ does the retrying, on the delivery's schedule), no
 * redirects followed (a 3xx is a failure), and the address checked when the connection is made
 * (src/outbound.ts). Agents keep connections alive between deliveries to the same host.
 */
export function createWebhookSender(options: SenderOptions): WebhookSender {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const agent = filteringAgents({ allowPrivate: options.allowPrivate, keepAlive: true });
  const client = got.extend({
    method: 'POST',
    agent,
    timeout: { request: timeoutMs },
    retry: { limit: 0 },
    followRedirect: false,
    throwHttpErrors: false,
    decompress: false,
    headers: { 'user-agent': 'Rebuttal-Webhooks/1' },
  });

  return {
    async send(url, headers, body) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      if (!options.allowPrivate && !url.startsWith('https:')) {
        return { ok: false, status: null, error: 'webhook URLs must use https', durationMs: 0 };
      }
      let status: number | null = null;
      const request = client(url, { headers, body });
      request.on('response', (response: { statusCode: number }) => {
        status = response.statusCode;
      });
      request.on('downloadProgress', (progress: { transferred: number }) => {
        if (progress.transferred > maxAnswerBytes) request.cancel();
      });
      try {
        const response = await request;
        return answered(response.statusCode, elapsed());
      } catch (error) {
        if (error instanceof CancelError && status !== null) return answered(status, elapsed());
        return { ok: false, status: null, error: outboundFailure(error, timeoutMs), durationMs: elapsed() };
      }
    },
    close() {
      agent.https.destroy();
      agent.http.destroy();
    },
  };
}

function answered(status: number, durationMs: number): SendResult {
  const ok = status >= 200 && status < 300;
  return { ok, status, error: ok ? null : `HTTP ${status}`, durationMs };
}
