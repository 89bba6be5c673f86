import { performance } from 'node:perf_hooks';
import { CancelError, got, TimeoutError } from 'got';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { certificateFailures } from '../../certificate-failures.js';

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
 * redirects followed (a 3xx is a failure), and the address checked when the connection is made by
 * request-filtering-agent, so a hostname that resolves to a private address is refused however it got
 * there (DNS rebinding included). Agents keep connections alive between deliveries to the same host.
 */
export function createWebhookSender(options: SenderOptions): WebhookSender {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const filtering = { keepAlive: true, allowPrivateIPAddress: options.allowPrivate };
  const agent = {
    https: new RequestFilteringHttpsAgent(filtering),
    http: new RequestFilteringHttpAgent(filtering),
  };
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
        return { ok: false, status: null, error: failureOf(error, timeoutMs), durationMs: elapsed() };
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

/**
 * The class of a failure without an answer, for the delivery log that clients read (docs/api.md, "The event
 * object"). Never the error's own message: it names the address a hostname resolved to (the filter's
 * "DNS lookup 10.0.0.5 …", "connect ECONNREFUSED 10.0.0.5:443"), which would tell a client about the
 * network this service runs in.
 */
function failureOf(error: unknown, timeoutMs: number): string {
  if (error instanceof TimeoutError) return `no answer within ${timeoutMs / 1000} s`;
  // request-filtering-agent's refusal has no code: its message is the only sign of it.
  if (error instanceof Error && / is not allowed\. Because/.test(error.message)) {
    return 'refused: the address is private';
  }
  const code = error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
  return (code && failureClasses[code]) ?? 'the request failed';
}

/** Network and TLS error codes as the delivery log names them. */
const failureClasses: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ETIMEDOUT: 'timed out connecting',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'host unreachable',
  ...certificateFailures,
  EPROTO: 'TLS handshake failed',
};
