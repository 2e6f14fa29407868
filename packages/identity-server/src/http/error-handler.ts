import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, errorEnvelope } from './errors.js';
import { RateLimitError } from './rate-limit.js';
import { DATABASE_RETRY_AFTER_SECONDS, databaseUnavailable } from '../db/unavailable.js';
import { describeValidation, type ValidationIssue } from './validation.js';

/** Largest request body accepted (413 above). */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** Status and message of an error thrown while answering a request: what the client gets in the envelope. */
function statusAndMessage(err: FastifyError, req: FastifyRequest): { status: number; message: string } {
  if (err instanceof ApiError) return { status: err.status, message: err.message };
  if (err.validation) {
    const context = err.validationContext ?? 'request';
    const message =
      context === 'body' && req.body === undefined
        ? 'request body is missing: send a JSON object with Content-Type: application/json'
        : describeValidation(context, err.validation as unknown as ValidationIssue[]);
    return { status: 400, message };
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, message: `unsupported Content-Type "${req.headers['content-type'] ?? ''}": send application/json` };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, message: `request body is larger than ${BODY_LIMIT_BYTES} bytes` };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, message: 'request body is empty but Content-Type is application/json: send a JSON object' };
  }
  if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError) return { status: 400, message: `malformed JSON body: ${err.message}` };
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) return { status: err.statusCode, message: err.message };
  const away = databaseUnavailable(err);
  if (away) {
    req.log.warn({ err }, 'database unavailable');
    return { status: 503, message: `${away}: try again in a few seconds` };
  }
  req.log.error({ err }, 'unhandled error');
  return { status: 500, message: `internal error (correlation id ${req.id})` };
}

/** Every error becomes the envelope `{ errors: [{ httpcode, message }] }`; the OAuth2 protocol endpoints add RFC 6749 fields. */
export function errorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const { status, message } = statusAndMessage(err, req);
  if (err instanceof RateLimitError) reply.header('retry-after', String(err.retryAfterSeconds));
  if (status === 503) reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
  // The OAuth2 protocol endpoints answer RFC 6749 errors (plus the envelope's `errors`).
  const protocol = /^\/oauth2\/tokens(\/(revoke|revoke-all|introspect))?(\?|$)/.test(req.url);
  if (protocol && status === 400) return void reply.code(400).send({ error: 'invalid_request', error_description: message, ...errorEnvelope(status, message) });
  reply.code(status).send(errorEnvelope(status, message));
}

/** 404 naming the method and path that no route serves. */
export function notFoundHandler(req: FastifyRequest, reply: FastifyReply): void {
  reply.code(404).send(errorEnvelope(404, `no route for ${req.method} ${req.url.split('?')[0]}`));
}
