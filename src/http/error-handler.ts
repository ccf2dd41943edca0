// One error handler writes every error body {code, name, message}: for our errors, Fastify's
// (frameworkErrors) and those of Node's HTTP parser and timeouts (clientErrorHandler). 4xx answers
// are logged at info with their code, 5xx at error with the cause (503s at most once a second per kind,
// logRefusal); a 5xx never shows internals.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyInstance } from 'fastify';
import { AppError, ERRORS } from '../errors.ts';
import {
  conflictWithStored,
  emptyJsonBody,
  expectationFailed,
  headersTooLarge,
  malformedHttp,
  malformedJson,
  malformedUrl,
  notAProxy,
  pathSegmentTooLong,
  payloadTooLarge,
  requestTimeout,
  routeNotFound,
  serviceBusy,
  tooManyRequests,
  unstorableValue,
  unsupportedMediaType,
  urlTooLong,
  validationFailed,
} from '../error-factories.ts';
import type { ErrorName } from '../errors.ts';
import { classifyDbError, classifyDbInputError } from '../db/errors.ts';
import { describeDbError } from '../db/connection.ts';
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
    return validationFailed(
      error.message,
      `${error.validationContext ?? 'request'}${path ? `.${path}` : ''}`,
      {
        cause: error,
      },
    );
  }
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return malformedUrl({ cause: error });
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return pathSegmentTooLong({ cause: error });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return payloadTooLarge({ cause: error });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedMediaType({ cause: error });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return emptyJsonBody({ cause: error });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return malformedJson({ cause: error });
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
    return malformedJson({ cause: error });
  }
  const status = error.statusCode ?? 500;
  if (status === 429) return tooManyRequests({ cause: error });
  if (status >= 400 && status < 500) {
    // Other client errors found by Fastify itself (bad URL, prototype poisoning ...).
    return validationFailed(error.message, undefined, { cause: error });
  }
  return undefined;
}

/** Writes the error answer for any error thrown while serving a request. */
export function handleRequestError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  let appErr = error instanceof AppError ? error : fromFastifyError(error);
  if (!appErr) {
    const db = classifyDbError(error);
    if (db?.kind === 'serialization_failure' || db?.kind === 'timeout' || db?.kind === 'unavailable') {
      appErr = serviceBusy({ cause: error });
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
        input.kind === 'conflict' ? conflictWithStored({ cause: error }) : unstorableValue({ cause: error });
    }
  }
  if (appErr && appErr.status < 500) {
    request.log.info(
      { code: appErr.code, errorName: appErr.errorName, reason: appErr.message },
      'request refused',
    );
    return send(request, reply, appErr.status, appErr.toBody());
  }
  const name: ErrorName = appErr?.errorName ?? 'INTERNAL_ERROR';
  if (ERRORS[name].status === 503) {
    const cause: unknown = error instanceof AppError ? error.cause : error;
    logRefusal(request, classifyDbError(cause)?.kind ?? name, {
      code: ERRORS[name].code,
      reason: appErr?.message,
      ...(cause !== undefined && { cause: describeDbError(cause) }),
    });
  } else {
    request.log.error({ err: error }, 'request failed');
  }
  // A 503 is worth retrying (docs/operations.md): say when.
  if (ERRORS[name].status === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', '1');
  return send(request, reply, ERRORS[name].status, {
    code: ERRORS[name].code,
    name,
    message: `${name === 'INTERNAL_ERROR' ? 'internal error' : appErr?.message}; request id ${request.id}`,
  });
}

/** At most one line a second per kind of refusal (below). */
const REFUSAL_LINE_EVERY_MS = 1000;
const refusalLines = new Map<string, { at: number; more: number }>();

/**
 * A 503 (the database away, an overload, a full queue) comes in floods: one warn line a second per
 * kind (a database error's class, or the error's name: a bounded set), without a stack, saying how
 * many more were refused since that kind's last line. A line with a stack for each refused request
 * filled the log buffer and the heap during a database outage (issue #28, fault 10).
 */
export function logRefusal(request: FastifyRequest, kind: string, details: Record<string, unknown>): void {
  const now = performance.now();
  const last = refusalLines.get(kind);
  if (last !== undefined && now - last.at < REFUSAL_LINE_EVERY_MS) {
    last.more += 1;
    return;
  }
  refusalLines.set(kind, { at: now, more: 0 });
  request.log.warn(
    { kind, ...details, refusedSinceLastLine: last?.more ?? 0 },
    'request refused: service unavailable',
  );
}

/** Node's parser errors and timeouts, answered on the raw socket since no request object exists. */
function clientErrorAnswer(error: { code?: string; rawPacket?: unknown }): AppError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return requestTimeout({ cause: error });
    case 'HPE_HEADER_OVERFLOW': {
      // Node counts the request line with the headers; tell a long URL from large headers.
      const packet = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.toString('latin1') : '';
      const lineEnd = packet.indexOf('\r\n');
      return lineEnd === -1 || lineEnd > MAX_URL_LENGTH
        ? urlTooLong(MAX_URL_LENGTH, { cause: error })
        : headersTooLarge({ cause: error });
    }
    case 'HPE_URI_TOO_LONG':
      return urlTooLong(MAX_URL_LENGTH, { cause: error });
    default:
      return malformedHttp({ cause: error });
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
    const error = expectationFailed();
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
    const error = notAProxy();
    const requestId = randomUUID();
    app.log.info({ code: error.code, errorName: error.errorName, requestId }, 'route not found');
    answerOnSocket(socket, error, requestId);
  });
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(handleRequestError);

  app.setNotFoundHandler((request, reply) => {
    const error = routeNotFound(request.method, request.url);
    request.log.info({ code: error.code }, 'route not found');
    return reply.code(error.status).send(error.toBody());
  });
}
