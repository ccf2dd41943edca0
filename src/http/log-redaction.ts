// What a request looks like in the logs: method, path and peer, never the query string. Queries
// carry login secrets (the provider's `code`, our `state`, a partner's `token` on its way back) and
// user identifiers, and request logs outlive every one of them.

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/** The path of a request URL without its query string (or fragment). */
export function pathForLog(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}

/** Pino serializers for the server's logger: every route's `req` is logged without its query. */
export const logSerializers = {
  req(request: LoggedRequest) {
    return {
      method: request.method,
      url: pathForLog(request.url),
      host: request.host,
      remoteAddress: request.ip,
      remotePort: request.socket?.remotePort,
    };
  },
};

/** Fastify's `logger` option with our serializers added (false and true pass through unchanged). */
export function withLogSerializers<T>(logger: T): T {
  if (typeof logger !== 'object' || logger === null) return logger;
  const given = (logger as { serializers?: Record<string, unknown> }).serializers;
  return { ...logger, serializers: { ...given, ...logSerializers } };
}
