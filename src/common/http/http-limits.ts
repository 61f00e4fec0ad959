// Time and connection limits (docs/limits.md#time-limits) on the Node HTTP server itself: the headers and the whole
// request must arrive in time (else 408 REQUEST_TIMEOUT in the one error shape, and the connection
// is closed, so a cut upload never reaches a handler), idle keep-alive connections close, and
// connections beyond the cap are dropped on arrival.
import { randomUUID } from 'node:crypto';
import type { Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_STATUS } from '../errors/domain-error';
import type { ErrorBody } from '../errors/error.filter';

export interface HttpLimits {
  /** The request line and headers must arrive within this. */
  headersTimeoutMs: number;
  /** The whole request, body included, must arrive within this. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Open connections per process; more are closed on arrival. */
  maxConnections: number;
}

/**
 * How often Node looks for requests past their time limit. Its default (30 s) would let a 120 s
 * limit run to 150 s; a tenth of the shortest limit, at most 1 s, keeps the cut close to the limit.
 */
export function connectionsCheckingInterval(limits: HttpLimits): number {
  return Math.max(10, Math.min(1_000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 10)));
}

function rawResponse(status: number, reason: string, headers: Record<string, string>, body = ''): string {
  const lines = [`HTTP/1.1 ${status} ${reason}`, 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

function timeoutResponse(inFlight: ServerResponse | undefined): string {
  const requestId = String(inFlight?.getHeader('x-request-id') ?? randomUUID());
  const body: ErrorBody = {
    statusCode: ERROR_STATUS.REQUEST_TIMEOUT,
    error: 'Request Timeout',
    message: 'The request did not arrive within the time limit',
    code: 'REQUEST_TIMEOUT',
    requestId,
  };
  return rawResponse(
    408,
    'Request Timeout',
    { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': requestId },
    JSON.stringify(body),
  );
}

/** What Node itself answers to a malformed request, for every client error but the time limit. */
function parserErrorResponse(code: string | undefined): string {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return rawResponse(431, 'Request Header Fields Too Large', {});
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return rawResponse(413, 'Payload Too Large', {});
    default:
      return rawResponse(400, 'Bad Request', {});
  }
}

export function applyHttpLimits(server: Server, limits: HttpLimits): void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  // Read by Node when the server starts listening.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
    connectionsCheckingInterval(limits);
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
    // Nothing may be written once a response has started, nor after the peer reset the connection.
    if (socket.writable && err.code !== 'ECONNRESET' && !inFlight?.headersSent) {
      socket.write(err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? timeoutResponse(inFlight) : parserErrorResponse(err.code));
    }
    socket.destroy();
  });
}
