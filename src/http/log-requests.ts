import type { FastifyInstance } from 'fastify';

/**
 * The request log: a line at info for a request that failed on our side (5xx) or took longer
 * than `slowMs`; every other request at debug (LOG_LEVEL=debug shows them all). Client errors
 * (4xx) are the client's news, at debug too.
 */
export function logRequests(app: FastifyInstance, slowMs: number): void {
  app.addHook('onResponse', async (request, reply) => {
    const ms = reply.elapsedTime;
    const entry = { req: { method: request.method, url: request.url }, res: { statusCode: reply.statusCode }, responseTime: ms };
    if (reply.statusCode >= 500 || ms >= slowMs) request.log.info(entry, reply.statusCode >= 500 ? 'request failed' : 'slow request');
    else request.log.debug(entry, 'request completed');
  });
}
