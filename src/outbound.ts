import { TimeoutError } from 'got';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { certificateFailures } from './certificate-failures.js';

/**
 * Requests to addresses a client chose (webhook receivers, product images): the one place their
 * connections are filtered, and the one wording of why such a request failed. request-filtering-agent
 * checks the address when the connection is made, so a hostname that resolves to a private address is
 * refused however it got there (DNS rebinding included).
 */

export interface OutboundOptions {
  /** WEBHOOK_ALLOW_PRIVATE: allow loopback, private and link-local addresses. */
  allowPrivate: boolean;
  /** Keep connections open between requests to the same host (webhook deliveries repeat). */
  keepAlive?: boolean;
  /** An authority to trust instead of the system's (PEM): a test's own, on loopback. */
  ca?: string;
}

/** The http and https agents, for got's `agent` option; destroy both when done. */
export function filteringAgents(options: OutboundOptions) {
  const filtering = {
    keepAlive: options.keepAlive ?? false,
    allowPrivateIPAddress: options.allowPrivate,
    ...(options.ca !== undefined && { ca: options.ca }),
  };
  return { https: new RequestFilteringHttpsAgent(filtering), http: new RequestFilteringHttpAgent(filtering) };
}

/**
 * The class of a failure without an answer, for what clients read (docs/api.md, "The event object";
 * docs/api.md, "Files"). Never the error's own message: it names the address a hostname resolved to (the
 * filter's "DNS lookup 10.0.0.5 …", "connect ECONNREFUSED 10.0.0.5:443"), which would tell a client about
 * the network this service runs in.
 */
export function outboundFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof TimeoutError) return `no answer within ${timeoutMs / 1000} s`;
  // request-filtering-agent's refusal has no code: its message is the only sign of it.
  if (error instanceof Error && / is not allowed\. Because/.test(error.message)) {
    return 'refused: the address is private';
  }
  const code = error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
  return (code && failureClasses[code]) ?? 'the request failed';
}

/** Network and TLS error codes as clients read them. */
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
