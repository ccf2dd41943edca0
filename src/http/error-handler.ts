// One error handler writes every error body {code, name, message}; one not-found handler answers
// unknown routes. 4xx answers are logged at info with their code, 5xx at error with the cause,
// and a 5xx never shows internals to the client.
import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError, ERRORS } from '../errors.ts';
import type { ErrorName } from '../errors.ts';
import { classifyDbError } from '../db/errors.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorPage } from './pages.ts';

/** The error body as JSON, or as a page when a browser navigated to a route that asks for it. */
function send(request: FastifyRequest, reply: FastifyReply, status: number, body: { code: number; name: string; message: string }) {
  const accept = request.headers.accept ?? '';
  if (request.routeOptions.config?.htmlErrors && accept.includes('text/html')) {
    return reply.code(status).type('text/html; charset=utf-8').send(errorPage(body.code, body.name, body.message));
  }
  return reply.code(status).send(body);
}

function fromFastifyError(error: FastifyError): AppError | undefined {
  if (error.validation) {
    const first = error.validation[0];
    const missing = (first?.params as { missingProperty?: unknown } | undefined)?.missingProperty;
    const path = [first?.instancePath.replace(/^\//, '').replaceAll('/', '.'), typeof missing === 'string' ? missing : '']
      .filter(Boolean)
      .join('.');
    return new AppError('VALIDATION_FAILED', error.message, {
      details: { field: `${error.validationContext ?? 'request'}${path ? `.${path}` : ''}` },
    });
  }
  switch (error.code) {
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

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    let appErr = error instanceof AppError ? error : fromFastifyError(error);
    if (!appErr) {
      const db = classifyDbError(error);
      if (db?.kind === 'serialization_failure' || db?.kind === 'timeout') {
        appErr = new AppError('SERVICE_UNAVAILABLE', 'the service is busy; retry the request', { cause: error });
      }
    }
    if (appErr && appErr.status < 500) {
      request.log.info({ code: appErr.code, errorName: appErr.errorName, reason: appErr.message }, 'request refused');
      return send(request, reply, appErr.status, appErr.toBody());
    }
    request.log.error({ err: error }, 'request failed');
    const name: ErrorName = appErr?.errorName ?? 'INTERNAL_ERROR';
    return send(request, reply, ERRORS[name].status, {
      code: ERRORS[name].code,
      name,
      message: `${name === 'INTERNAL_ERROR' ? 'internal error' : appErr?.message}; request id ${request.id}`,
    });
  });

  app.setNotFoundHandler((request, reply) => {
    const error = new AppError('ROUTE_NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`);
    request.log.info({ code: error.code }, 'route not found');
    return reply.code(error.status).send(error.toBody());
  });
}
