import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { preferredEncoding } from './accept-encoding.ts';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** JSON bodies smaller than this go as they are: the coding would cost more than it saves. */
export const COMPRESS_MIN_BYTES = 1024;

/**
 * JSON answers compressed for the clients that ask (Accept-Encoding): brotli at quality 4 (about
 * gzip's speed, a smaller body), else gzip; on the thread pool, never on the event loop. The app's
 * 90-day overview reads ~137 kB of JSON, ~25 kB this way. Bodies already coded (the pages, the
 * assets) and streams are left alone. A compressed body's ETag becomes weak (RFC 9110 8.8.1: the
 * bytes differ by coding), which the cached reads compare weakly anyway (cached-reply.ts).
 */
export function compressJson(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    if (reply.getHeader('content-encoding') !== undefined) return payload;
    if (!String(reply.getHeader('content-type') ?? '').startsWith('application/json')) return payload;
    varyByCoding(reply);
    const size = Buffer.byteLength(payload);
    const coding = size < COMPRESS_MIN_BYTES ? undefined : preferredEncoding(request);
    if (coding === undefined) return payload;
    const body =
      coding === 'br'
        ? await brotli(payload, { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT, [constants.BROTLI_PARAM_SIZE_HINT]: size } })
        : await gzipped(payload, { level: 6 });
    const etag = reply.getHeader('etag');
    if (typeof etag === 'string' && etag.startsWith('"')) void reply.header('etag', `W/${etag}`);
    void reply.header('content-encoding', coding).removeHeader('content-length');
    return body;
  });
}

/** Adds Accept-Encoding to the reply's Vary, keeping what is there (CORS's Origin, say). */
export function varyByCoding(reply: FastifyReply): void {
  const vary = String(reply.getHeader('vary') ?? '');
  if (!/\baccept-encoding\b/i.test(vary)) void reply.header('vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
}
