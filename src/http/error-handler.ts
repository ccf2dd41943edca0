// One error handler writes every error body {code, name, message}: for our errors, Fastify's
// (frameworkErrors) and those of Node's HTTP parser and timeouts (clientErrorHandler). 4xx answers
// are logged at info with their code, 5xx at error with the cause; a 5xx never shows internals.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyInstance } from 'fastify';
import { AppError, ERRORS } from '../errors.ts';
import type { ErrorName } from '../errors.ts';
import { classifyDbError, classifyDbInputError } from '../db/errors.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorPage } from './pages.ts';
import { MAX_URL_LENGTH } from './input-guard.ts';

/** The error body as JSON, or as a page when a browser navigated to a route that asks for it. */
function send(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  body: { code: number; name: string; message: string },
) {
  // Set here too: answers to Fastify's router errors (frameworkErrors) skip the onSend hooks.
  reply.header('x-request-id', request.id);
  const accept = request.headers.accept ?? '';
  if (request.routeOptions.config?.htmlErrors && accept.includes('text/html')) {
    return reply
      .code(status)
      .type('text/html; charset=utf-8')
      .send(errorPage(body.code, body.name, body.message));
  }
  return reply.code(status).send(body);
}

function fromFastifyError(error: FastifyError): AppError | undefined {
  if (error.validation) {
    const first = error.validation[0];
    const missing = (first?.params as { missingProperty?: unknown } | undefined)?.missingProperty;
    const path = [
      first?.instancePath.replace(/^\//, '').replaceAll('/', '.'),
      typeof missing === 'string' ? missing : '',
    ]
      .filter(Boolean)
      .join('.');
    return new AppError('VALIDATION_FAILED', error.message, {
      details: { field: `${error.validationContext ?? 'request'}${path ? `.${path}` : ''}` },
    });
  }
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return new AppError('MALFORMED_URL', 'the URL path has a malformed percent-encoding');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('URI_TOO_LONG', 'a path segment of the URL is too long');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'request body is larger than the service accepts');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('MALFORMED_JSON', 'the body is empty but the content type is application/json');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('MALFORMED_JSON', 'the body is not valid JSON');
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
    return new AppError('MALFORMED_JSON', 'the body is not valid JSON');
  }
  const status = error.statusCode ?? 500;
  if (status === 429) return new AppError('RATE_LIMITED', 'too many requests; slow down and retry');
  if (status >= 400 && status < 500) {
    // Other client errors found by Fastify itself (bad URL, prototype poisoning ...).
    return new AppError('VALIDATION_FAILED', error.message);
  }
  return undefined;
}

/** Writes the error answer for any error thrown while serving a request. */
export function handleRequestError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  let appErr = error instanceof AppError ? error : fromFastifyError(error);
  if (!appErr) {
    const db = classifyDbError(error);
    if (db?.kind === 'serialization_failure' || db?.kind === 'timeout' || db?.kind === 'unavailable') {
      appErr = new AppError('SERVICE_UNAVAILABLE', 'the service is busy; retry the request', {
        cause: error,
      });
    }
  }
  if (!appErr) {
    const input = classifyDbInputError(error);
    if (input) {
      // The edge's validation missed a value the database refuses: still the client's error, but
      // worth a look. No message or value is logged: the value may be a credential.
      request.log.warn(
        { sqlState: input.sqlState, route: request.routeOptions.url },
        'database refused a value of the request',
      );
      appErr =
        input.kind === 'conflict'
          ? new AppError('CONFLICT', 'the request conflicts with what is stored; reload and retry')
          : new AppError(
              'UNSTORABLE_VALUE',
              'a value in the request cannot be stored (malformed, out of range or too long)',
            );
    }
  }
  if (appErr && appErr.status < 500) {
    request.log.info(
      { code: appErr.code, errorName: appErr.errorName, reason: appErr.message },
      'request refused',
    );
    return send(request, reply, appErr.status, appErr.toBody());
  }
  request.log.error({ err: error }, 'request failed');
  const name: ErrorName = appErr?.errorName ?? 'INTERNAL_ERROR';
  // A 503 is worth retrying (docs/operations.md): say when.
  if (ERRORS[name].status === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', '1');
  return send(request, reply, ERRORS[name].status, {
    code: ERRORS[name].code,
    name,
    message: `${name === 'INTERNAL_ERROR' ? 'internal error' : appErr?.message}; request id ${request.id}`,
  });
}

/** Node's parser errors and timeouts, answered on the raw socket since no request object exists. */
function clientErrorAnswer(error: { code?: string; rawPacket?: unknown }): AppError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('REQUEST_TIMEOUT', 'the request did not arrive in time');
    case 'HPE_HEADER_OVERFLOW': {
      // Node counts the request line with the headers; tell a long URL from large headers.
      const packet = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.toString('latin1') : '';
      const lineEnd = packet.indexOf('\r\n');
      return lineEnd === -1 || lineEnd > MAX_URL_LENGTH
        ? new AppError('URI_TOO_LONG', `the URL is longer than ${MAX_URL_LENGTH} characters`)
        : new AppError('HEADERS_TOO_LARGE', 'the request headers are larger than the service accepts');
    }
    case 'HPE_URI_TOO_LONG':
      return new AppError('URI_TOO_LONG', `the URL is longer than ${MAX_URL_LENGTH} characters`);
    default:
      return new AppError('MALFORMED_REQUEST', 'the request is not well-formed HTTP/1.1');
  }
}

/** Writes a whole answer with our error body straight on a socket, then closes it. */
function answerOnSocket(socket: Socket, answer: AppError, requestId: string): void {
  // Like Node's own handler: only when no answer to this socket has started.
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const body = JSON.stringify(answer.toBody());
    socket.write(
      `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? 'Error'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * Fastify's clientErrorHandler: writes our error body on the socket and closes it. Never echoes the
 * raw packet, which may hold credentials.
 */
export function handleClientError(this: FastifyInstance, error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const answer = clientErrorAnswer(error);
  const requestId = randomUUID();
  this.log.info(
    { code: answer.code, errorName: answer.errorName, reason: error.code, requestId },
    'request refused by the HTTP parser',
  );
  answerOnSocket(socket, answer, requestId);
}

/**
 * Answers that Node's HTTP server would otherwise write itself, without our body: an `Expect` other
 * than 100-continue (417) and CONNECT (Node would drop the connection without a word).
 */
export function registerServerLevelAnswers(app: FastifyInstance): void {
  app.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const error = new AppError('EXPECTATION_FAILED', 'only the expectation 100-continue is supported');
    const requestId = randomUUID();
    app.log.info({ code: error.code, errorName: error.errorName, requestId }, 'request refused');
    response.shouldKeepAlive = false;
    const body = JSON.stringify(error.toBody());
    response.writeHead(error.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'x-request-id': requestId,
    });
    response.end(body);
  });
  app.server.on('connect', (_request: IncomingMessage, socket: Socket) => {
    const error = new AppError('ROUTE_NOT_FOUND', 'this service is not a proxy: no route CONNECT');
    const requestId = randomUUID();
    app.log.info({ code: error.code, errorName: error.errorName, requestId }, 'route not found');
    answerOnSocket(socket, error, requestId);
  });
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(handleRequestError);

  app.setNotFoundHandler((request, reply) => {
    const error = new AppError('ROUTE_NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`);
    request.log.info({ code: error.code }, 'route not found');
    return reply.code(error.status).send(error.toBody());
  });
}
