import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, RateLimitedError, type ErrorCode, type ErrorDetails } from './errors.ts';

interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetails };
}

/** HTTP-level refusals that keep their own status, with code `bad_request` (operations.md 5). */
const HTTP_LEVEL_STATUSES = new Set([405, 408, 413, 414, 415, 431]);

const STATUS_TO_CODE: Record<number, ErrorCode> = {
  401: 'unauthorized',
  402: 'quota_exceeded',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  429: 'rate_limited',
};

/** Every failure, whatever raised it, leaves as the error body with the status of its code. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) => {
    const { status, body } = toErrorResponse(error, request.routeOptions.config?.accepts);
    if (status >= 500) {
      request.log.error({ err: error }, 'unexpected error');
    }
    if (error instanceof RateLimitedError) {
      reply.header('retry-after', String(error.retryAfterSeconds));
    }
    // A read that failed after naming its body's tag (cached-reply.ts) has no such body: a client
    // must not hold the tag and be told 304 for an error next time.
    reply.removeHeader('etag');
    return reply.status(status).type('application/json; charset=utf-8').send(body);
  });

  app.setNotFoundHandler((request, reply) => {
    const body: ErrorBody = {
      error: { code: 'not_found', message: `no route ${request.method} ${request.url.split('?')[0]}` },
    };
    return reply.status(404).send(body);
  });
}

/** `accepts`: the media types the route reads, named when a body comes in another (415). */
export function toErrorResponse(error: FastifyError | AppError, accepts = 'application/json'): { status: number; body: ErrorBody } {
  if (error instanceof AppError) {
    const body: ErrorBody = { error: { code: error.code, message: error.message } };
    if (error.details) body.error.details = error.details;
    return { status: error.statusCode, body };
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    const details = validationDetails(fastifyError);
    const fields = Object.keys(details).map((f) => `\`${f}\``);
    return {
      status: 400,
      body: {
        error: {
          code: 'bad_request',
          message: `invalid ${fastifyError.validationContext ?? 'request'}: ${fields.join(', ')} ${fields.length === 1 ? 'is' : 'are'} not valid (see details)`,
          details,
        },
      },
    };
  }
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const code = STATUS_TO_CODE[status] ?? 'bad_request';
    const finalStatus = code !== 'bad_request' || HTTP_LEVEL_STATUSES.has(status) ? status : 400;
    return { status: finalStatus, body: { error: { code, message: clientMessage(fastifyError, accepts) } } };
  }
  return { status: 500, body: { error: { code: 'internal', message: 'internal server error; retry with backoff' } } };
}

function clientMessage(error: FastifyError, accepts: string): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'request body is too large';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return `unsupported content type; send ${accepts}`;
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'request body is not valid JSON';
    default:
      // Fastify's own 4xx messages describe the request, never server internals.
      return error.message;
  }
}

/** Ajv's errors as `{ field: what is wrong }`, the field named as the client sent it. */
function validationDetails(error: FastifyError): ErrorDetails {
  const details: ErrorDetails = {};
  const items = (error.validation ?? []).map((item) => {
    const params = item.params as Record<string, unknown>;
    const missing = typeof params.missingProperty === 'string' ? params.missingProperty : undefined;
    const extra = typeof params.additionalProperty === 'string' ? params.additionalProperty : undefined;
    const path = item.instancePath
      .split('/')
      .filter(Boolean)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (missing) path.push(missing);
    if (extra) path.push(extra);
    return { item, params, missing, extra, field: path.join('.') || error.validationContext || 'request' };
  });
  // A union of literals fails once per literal (each `const` names one) and once as a whole: the
  // field's allowed values are all of them.
  const allowed = new Map<string, unknown[]>();
  for (const { item, params, field } of items) {
    const values = item.keyword === 'enum' ? (params.allowedValues as unknown[]) : item.keyword === 'const' ? [params.allowedValue] : [];
    allowed.set(field, [...(allowed.get(field) ?? []), ...values]);
  }
  for (const { item, params, missing, extra, field } of items) {
    if (details[field] === undefined) {
      details[field] = describe(item.keyword, params, item.message, missing !== undefined, extra !== undefined, allowed.get(field) ?? []);
    }
  }
  return details;
}

function describe(keyword: string, params: Record<string, unknown>, message: string | undefined, missing: boolean, extra: boolean, allowed: unknown[]): string {
  if (missing) return 'is required';
  if (extra) return 'is not a known field';
  if (keyword === 'format') return `must be a valid ${String(params.format)}`;
  if (keyword === 'anyOf' || keyword === 'enum' || keyword === 'const') {
    return allowed.length > 0 ? `must be one of ${allowed.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')}` : 'is not an allowed value';
  }
  return message ?? 'is not valid';
}

/**
 * Errors Fastify's router raises before any route (a bad percent-encoding, a path parameter
 * longer than the router allows): the error body, code `bad_request`.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const status = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
  const message =
    error.code === 'FST_ERR_BAD_URL'
      ? 'the URL is not valid: a `%` must start a percent-encoded byte (like %20)'
      : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? 'the URL is too long: a path segment exceeds the length allowed'
        : 'the request could not be routed';
  const body: ErrorBody = { error: { code: 'bad_request', message } };
  void reply.status(status).type('application/json; charset=utf-8').send(body);
}

/**
 * What Node's HTTP parser refuses before Fastify sees a request (a malformed request line or
 * header, headers over the size limit, a request too slow to arrive): the error body too, code
 * `bad_request`, with 431 for oversized headers, 408 for a timeout, 400 otherwise.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const message =
    status === 431
      ? 'the request headers (or the URL) are larger than the service accepts'
      : status === 408
        ? 'the request did not arrive in time'
        : 'the request is not valid HTTP';
  const body = JSON.stringify({ error: { code: 'bad_request', message } } satisfies ErrorBody);
  // Nothing more once a response has begun on the socket (a 401 sent before the body it refused
  // finished arriving): the connection is only closed.
  const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (socket.writable && !answering?.headersSent) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The media types a route's body may come in, as a 415 names them (default application/json). */
    accepts?: string;
  }
}
