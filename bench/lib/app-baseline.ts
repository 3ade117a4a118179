/**
 * The baseline of bench/app.ts: a bare Fastify (no database, no auth, no plugins, no logger) that
 * serves fixed files from memory, each with the headers bench/app.ts recorded for it: a static
 * snapshot of the drawn overview (its scripts removed) and the stylesheet and icon exactly as the
 * service sent them (same bytes, same content coding). Run as its own process, so the browser's
 * client in bench/app.ts does not share its event loop:
 *
 *   APP_BASELINE_MANIFEST=FILE PORT=N node bench/lib/app-baseline.ts
 *
 * The manifest is JSON: `{ "routes": [{ "path", "file", "type", "encoding"?, "cacheControl" }] }`.
 * The body is sent as stored whatever the request's Accept-Encoding (Chromium takes gzip and br).
 */
import { readFileSync } from 'node:fs';
import Fastify, { type FastifyInstance } from 'fastify';

export interface BaselineRoute {
  /** The URL path (a query string is ignored). */
  path: string;
  /** The body as sent, already compressed when `encoding` is set. */
  file: string;
  type: string;
  encoding?: string;
  cacheControl: string;
}

export function buildBaselineApp(routes: readonly BaselineRoute[]): FastifyInstance {
  const app = Fastify();
  for (const route of routes) {
    const body = readFileSync(route.file);
    app.get(route.path, async (_request, reply) => {
      void reply.header('cache-control', route.cacheControl).header('vary', 'Accept-Encoding').type(route.type);
      if (route.encoding) void reply.header('content-encoding', route.encoding);
      return reply.send(body);
    });
  }
  return app;
}

if (import.meta.main) {
  const manifest = process.env.APP_BASELINE_MANIFEST;
  if (!manifest) throw new Error('APP_BASELINE_MANIFEST is not set');
  const { routes } = JSON.parse(readFileSync(manifest, 'utf8')) as { routes: BaselineRoute[] };
  const app = buildBaselineApp(routes);
  const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
  console.log(`app baseline (bare Fastify, ${routes.length} files) listening on ${address}`);
  const stop = () => {
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
