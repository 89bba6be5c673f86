import { type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from '../domain/errors.js';
import { errorBody } from './middleware/errors.js';
import { newRequestId } from './middleware/request-log.js';

/**
 * Requests Node refuses before express sees them (headers or URL over its 16 KiB limit, malformed HTTP)
 * would get Node's bare answer with no body; answer them with the JSON error body instead, and a new
 * `Request-Id` like every answer (docs/api.md, "Conventions"): the request's own headers are unread.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const problem =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? new ApiError('request_too_large', 'The request line and headers are larger than 16 KiB.')
        : new ApiError('invalid_request', 'The request is not valid HTTP.');
    const body = JSON.stringify(errorBody(null, false, problem));
    socket.end(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Request-Id: ${newRequestId()}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
