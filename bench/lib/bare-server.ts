/**
 * The baseline: a plain Fastify instance with one route, `GET /bare`, returning a small JSON object.
 * No database, no auth, no schemas, no logger. Imported by projects-endpoint.ts (in process) and run
 * as its own process by startup.ts:
 *
 *   PORT=3001 node bench/lib/bare-server.ts
 */
import Fastify, { type FastifyInstance } from 'fastify';

export function buildBareApp(): FastifyInstance {
  const app = Fastify();
  app.get('/bare', async () => ({ ok: true, service: 'bare', items: [1, 2, 3] }));
  return app;
}

if (import.meta.main) {
  const app = buildBareApp();
  const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
  console.log(`bare Fastify listening on ${address}`);
  const stop = () => {
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
